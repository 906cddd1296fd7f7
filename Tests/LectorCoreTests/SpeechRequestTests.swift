import LectorCore
import XCTest

final class SpeechRequestTests: XCTestCase {
    func testDefaultsAreEspeakNormal() throws {
        let request = try SpeechRequest(text: "Hello")
        XCTAssertEqual(request.espeakRate, 175)
        XCTAssertEqual(request.espeakPitch, 50)
        XCTAssertEqual(request.espeakVolume, 100)
        XCTAssertEqual(request.priority, .message)
        XCTAssertNil(request.language)
    }

    func testOptionsAreApplied() throws {
        let request = try SpeechRequest(text: "Hello", options: [
            "rate": .double(1.5), "pitch": .double(0.5), "volume": .double(0.25),
            "language": .string("en-GB"), "voice": .string("gmw/en"), "priority": .string("important"),
        ])
        XCTAssertEqual(request.espeakRate, 263)
        XCTAssertEqual(request.espeakPitch, 25)
        XCTAssertEqual(request.espeakVolume, 25)
        XCTAssertEqual(request.language, "en-GB")
        XCTAssertEqual(request.voice, "gmw/en")
        XCTAssertEqual(request.priority, .important)
    }

    func testIntegersAreAcceptedForNumbers() throws {
        XCTAssertEqual(try SpeechRequest(text: "a", options: ["rate": .integer(2)]).espeakRate, 350)
    }

    func testEmptyAndWhitespaceTextAreRefused() {
        for text in ["", "   ", "\n\t "] {
            XCTAssertThrowsError(try SpeechRequest(text: text)) { error in
                XCTAssertEqual((error as? LectorError)?.kind, .invalidArgument, "\(text.debugDescription)")
            }
        }
    }

    func testTextLimitIsInBytes() throws {
        let limit = SpeechRequest.maximumTextBytes
        XCTAssertNoThrow(try SpeechRequest(text: String(repeating: "a", count: limit)))
        XCTAssertThrowsError(try SpeechRequest(text: String(repeating: "a", count: limit + 1))) {
            XCTAssertEqual(($0 as? LectorError)?.busName, "io.github.lector.Error.TextTooLong")
        }
        // 3 bytes each: fewer characters than the limit, more bytes.
        XCTAssertThrowsError(try SpeechRequest(text: String(repeating: "语", count: limit / 3 + 1)))
    }

    func testBadNumbersAreRefusedWithTheirName() {
        let cases: [(String, OptionValue)] = [
            ("rate", .double(.nan)), ("rate", .double(.infinity)), ("rate", .double(0.1)), ("rate", .double(9)),
            ("pitch", .double(-0.5)), ("volume", .double(-1)), ("volume", .double(1.01)),
            ("rate", .string("fast")), ("volume", .boolean(true)), ("pitch", .other(signature: "as")),
        ]
        for (key, value) in cases {
            XCTAssertThrowsError(try SpeechRequest(text: "a", options: [key: value])) { error in
                guard let error = error as? LectorError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .invalidArgument)
                XCTAssertTrue(error.message.contains("\"\(key)\""), error.message)
            }
        }
    }

    func testUnknownOptionsAndValuesAreRefused() {
        let cases: [[String: OptionValue]] = [
            ["speed": .double(1)], ["priority": .string("urgent")], ["language": .string("en_GB!!")],
            ["language": .string("")], ["voice": .string("")], ["language": .double(1)],
        ]
        for options in cases {
            XCTAssertThrowsError(try SpeechRequest(text: "a", options: options)) {
                XCTAssertEqual(($0 as? LectorError)?.kind, .invalidArgument, "\(options)")
            }
        }
    }

    func testSSMLIsCheckedBeforeTheRequestExists() throws {
        let request = try SpeechRequest(text: "<speak>Wait <break time=\"500ms\"/> now</speak>", options: ["ssml": .boolean(true)])
        XCTAssertTrue(request.ssml)
        XCTAssertEqual(request.spoken.text, request.text, "SSML goes to espeak-ng as written")
        XCTAssertThrowsError(try SpeechRequest(text: "<speak>Wait <break time=\"1.5s\"/></speak>", options: ["ssml": .boolean(true)])) { error in
            XCTAssertEqual(error as? LectorError, .invalidArgument(
                "invalid SSML at line 1, column 20: time=\"1.5s\" is not whole milliseconds or seconds (e.g. 500ms, 2s): espeak-ng would pause only 1 ms"))
        }
        // Without the option the same text is plain text, spoken with its brackets.
        XCTAssertFalse(try SpeechRequest(text: "<speak>Wait <break time=\"1.5s\"/></speak>").ssml)
    }

    func testUTF8DecodingRefusesBadBytesWithTheirOffset() throws {
        XCTAssertEqual(try SpeechRequest.decodeUTF8(Array("Grüße 你好".utf8)), "Grüße 你好")
        XCTAssertThrowsError(try SpeechRequest.decodeUTF8([0x66, 0x6f, 0xff, 0x6f])) { error in
            XCTAssertTrue((error as? LectorError)?.message.contains("offset 2") == true, "\(error)")
        }
        XCTAssertThrowsError(try SpeechRequest.decodeUTF8([0xe4, 0xbd])) // truncated sequence
    }
}
