import Foundation
import LectorTestKit
import XCTest

/// Every bad call gets its named io.github.lector.Error.* and leaves the daemon serving.
/// One daemon serves the whole class (starting one per case would cost a second each).
final class BadInputTests: XCTestCase {
    nonisolated(unsafe) private static var shared: LectorFixture?
    nonisolated(unsafe) private static var setUpError: Error?

    override class func setUp() {
        super.setUp()
        do { shared = try LectorFixture() } catch { setUpError = error }
    }

    override class func tearDown() {
        shared?.shutdown()
        shared = nil
        super.tearDown()
    }

    private func lector() throws -> LectorFixture {
        guard let lector = Self.shared else {
            throw TestKitError.failed("no daemon: \(Self.setUpError.map { "\($0)" } ?? "setUp did not run")")
        }
        return lector
    }

    /// Speak(text, options) must fail with `error`; then the daemon must still answer.
    private func assertSpeakRefused(_ text: String, _ options: String, _ error: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        let lector = try lector()
        let shown = text.count > 40 ? "\(text.prefix(20))…(\(text.utf8.count) bytes)" : text
        let result = try lector.call("Speak", [text, options])
        lector.assertError(result, error, "Speak(\"\(shown)\", \(options))", file: file, line: line)
        lector.assertServing("after Speak(\"\(shown)\", \(options))", file: file, line: line)
    }

    /// Speak must be accepted, heard to the end (`done`).
    private func assertSpeakAccepted(_ text: String, _ options: String,
                                     file: StaticString = #filePath, line: UInt = #line) throws {
        let lector = try lector()
        let result = try lector.call("Speak", [text, options])
        XCTAssertTrue(result.succeeded, "Speak(\"\(text)\", \(options)) refused: \(result)", file: file, line: line)
        let id = try XCTUnwrap(LectorFixture.uint64(in: result.stdout), "no id in \(result)", file: file, line: line)
        XCTAssertEqual(lector.finished(id, timeout: 15)?.arguments.last, "done",
                       "Speak(\"\(text)\", \(options))\(lector.context)", file: file, line: line)
    }

    // MARK: - Text

    func testEmptyTextIsInvalidArgument() throws {
        try assertSpeakRefused("", "{}", "InvalidArgument")
    }

    func testWhitespaceOnlyTextIsInvalidArgument() throws {
        try assertSpeakRefused(" \t\n  \u{00A0}\u{3000}", "{}", "InvalidArgument")
    }

    func testTextOverTheByteLimitIsTextTooLong() throws {
        try assertSpeakRefused(String(repeating: "a", count: 65_537), "{}", "TextTooLong")
        // The limit is in UTF-8 bytes, not characters: 32 769 × "é" is 65 538 bytes.
        try assertSpeakRefused(String(repeating: "\u{00E9}", count: 32_769), "{}", "TextTooLong")
    }

    func testTextOfExactlyTheByteLimitIsAccepted() throws {
        let lector = try lector()
        let text = String(repeating: "word ", count: 65_536 / 5) + String(repeating: "x", count: 65_536 % 5)
        XCTAssertEqual(text.utf8.count, 65_536)
        let result = try lector.call("Speak", [text, "{}"])
        XCTAssertTrue(result.succeeded, "65536 bytes must be accepted: \(result.stderr)")
        if let id = LectorFixture.uint64(in: result.stdout) {
            XCTAssertTrue(try lector.call("Cancel", [String(id)]).succeeded)
            XCTAssertEqual(lector.finished(id, timeout: 5)?.arguments.last, "cancelled", lector.context)
        }
        lector.assertServing("after a 64 KiB text")
    }

    // MARK: - Voice and language

    func testUnknownVoiceIsUnknownVoice() throws {
        try assertSpeakRefused("hi", "{'voice': <'nosuchvoice'>}", "UnknownVoice")
    }

    func testEmptyVoiceIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'voice': <''>}", "InvalidArgument")
    }

    func testUnknownLanguageIsUnknownLanguage() throws {
        try assertSpeakRefused("hi", "{'language': <'xx-YY'>}", "UnknownLanguage")
    }

    func testMalformedLanguageIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'language': <'en_GB!!'>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'language': <''>}", "InvalidArgument")
    }

    func testChineseByRegionIsAccepted() throws {
        try assertSpeakAccepted("\u{4F60}\u{597D}", "{'language': <'zh-CN'>}")
    }

    func testVoiceByNameFromTheVoicesPropertyIsAccepted() throws {
        let lector = try lector()
        let voices = try XCTUnwrap(try lector.property("Voices") as? [[String]], "Voices is not a(sss)")
        XCTAssertGreaterThan(voices.count, 10, "espeak-ng lists many voices")
        XCTAssertTrue(voices.allSatisfy { $0.count == 3 && ["male", "female", "unknown"].contains($0[2]) }, "\(voices.prefix(5))")
        // A name with spaces and punctuation, as a person would copy it from the property.
        let name = try XCTUnwrap(voices.map { $0[0] }.first { $0.contains(" ") && !$0.contains("'") }
                                    ?? voices.first?[0])
        try assertSpeakAccepted("hello", "{'voice': <'\(name)'>}")
        // The voice wins over the language.
        try assertSpeakAccepted("hello", "{'voice': <'\(name)'>, 'language': <'xx-YY'>}")
    }

    // MARK: - Numbers

    func testNaNRateIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'rate': <nan>}", "InvalidArgument")
        // The same through busctl, as the brief's reference client sends it.
        let lector = try lector()
        let busctl = try lector.session.run("busctl", ["--user", "call", LectorFixture.service, LectorFixture.objectPath,
                                                       LectorFixture.interface, "Speak", "sa{sv}", "hi", "1", "rate", "d", "nan"])
        // busctl (systemd 252) parses "nan" with strtod and sends it: the daemon must refuse it.
        XCTAssertFalse(busctl.succeeded, "\(busctl)")
        XCTAssertTrue(busctl.stderr.contains("finite"), "\(busctl)")
        lector.assertServing("after NaN")
    }

    func testInfiniteRateIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'rate': <inf>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'rate': <-inf>}", "InvalidArgument")
    }

    func testOutOfRangeNumbersAreInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'rate': <0.1>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'rate': <9.0>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'volume': <-1.0>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'volume': <1.5>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'pitch': <-0.5>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'pitch': <2.5>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'rate': <uint64 18446744073709551615>}", "InvalidArgument")
    }

    func testNumbersAtTheLimitsAndIntegersAreAccepted() throws {
        try assertSpeakAccepted("ok", "{'rate': <2.5>, 'pitch': <0.0>, 'volume': <1.0>}")
        try assertSpeakAccepted("ok", "{'rate': <2>}")   // gdbus sends an int32
    }

    // MARK: - Types and keys

    func testRateAsStringIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'rate': <'fast'>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'language': <42>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'rate': <true>}", "InvalidArgument")
        try assertSpeakRefused("hi", "{'rate': <[1.0, 2.0]>}", "InvalidArgument")
    }

    func testUnknownOptionIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'speed': <1.0>}", "InvalidArgument")
    }

    func testOptionGivenTwiceIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'rate': <1.0>, 'rate': <1.5>}", "InvalidArgument")
    }

    func testUnknownPriorityIsInvalidArgument() throws {
        try assertSpeakRefused("hi", "{'priority': <'urgent'>}", "InvalidArgument")
    }

    func testWrongSignatureIsRefusedByTheBus() throws {
        let lector = try lector()
        let result = try lector.session.run("busctl", ["--user", "call", LectorFixture.service, LectorFixture.objectPath,
                                                       LectorFixture.interface, "Speak", "s", "hi"])
        XCTAssertFalse(result.succeeded, "\(result)")
        lector.assertServing("after Speak(s)")
    }

    // MARK: - Cancel

    func testCancelOfUnknownIdIsNoSuchSpeech() throws {
        let lector = try lector()
        lector.assertError(try lector.call("Cancel", ["987654321"]), "NoSuchSpeech", "Cancel(987654321)")
        lector.assertError(try lector.call("Cancel", ["0"]), "NoSuchSpeech", "Cancel(0)")
        lector.assertServing("after Cancel of an unknown id")
    }

    // MARK: - Afterwards

    /// Whatever order the cases ran in: a burst of bad calls, then a good Speak is still heard.
    func testAGoodSpeechIsHeardAfterBadInput() throws {
        let lector = try lector()
        for options in ["{'rate': <nan>}", "{'voice': <'nosuchvoice'>}", "{'language': <'xx-YY'>}", "{'x': <1>}"] {
            XCTAssertFalse(try lector.call("Speak", ["hi", options]).succeeded, options)
        }
        XCTAssertFalse(try lector.call("Speak", ["", "{}"]).succeeded)
        XCTAssertTrue(lector.recording.waitForSilence(quiet: 0.2, timeout: 15))
        let called = Date()
        let id = try lector.speak("Still working.")
        XCTAssertNotNil(lector.recording.waitForSound(after: called, timeout: 2), "not heard\(lector.context)")
        XCTAssertEqual(lector.finished(id, timeout: 10)?.arguments.last, "done", lector.context)
    }
}
