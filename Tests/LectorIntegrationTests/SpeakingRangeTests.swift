import Foundation
import LectorTestKit
import XCTest

/// SpeakingRange(id, start, length) cuts the word being heard out of the text, in Unicode scalar
/// offsets, and follows the audio rather than the synthesizer.
final class SpeakingRangeTests: XCTestCase {
    /// Speaks `text` to the end and returns the words its SpeakingRange signals cut out, in order.
    private func spokenRanges(_ text: String, in lector: LectorFixture) throws -> (words: [String], signals: [ObservedSignal]) {
        let id = try lector.speak(text)
        let finished = try XCTUnwrap(lector.finished(id, timeout: 15), "no SpeechFinished(\(id))\(lector.context)")
        XCTAssertEqual(finished.arguments.last, "done", lector.context)
        let signals = lector.signals(of: id)
        let ranges = signals.filter { $0.member == "SpeakingRange" }
        // Every range lies between SpeechStarted and SpeechFinished.
        XCTAssertEqual(signals.first?.member, "SpeechStarted", lector.context)
        XCTAssertEqual(signals.last?.member, "SpeechFinished", lector.context)

        let scalars = Array(text.unicodeScalars)
        var words: [String] = []
        for range in ranges {
            XCTAssertEqual(range.arguments.count, 3, range.raw)
            guard range.arguments.count == 3, let start = Int(range.arguments[1]), let length = Int(range.arguments[2]) else {
                XCTFail("malformed \(range)")
                continue
            }
            guard start >= 0, length > 0, start + length <= scalars.count else {
                XCTFail("range \(range.raw) outside the \(scalars.count) scalars of \"\(text)\"")
                continue
            }
            var word = String.UnicodeScalarView()
            word.append(contentsOf: scalars[start..<(start + length)])
            words.append(String(word))
        }
        return (words, ranges)
    }

    func testRangesCutOutEveryWordInOrderSpreadOverTheSpeech() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let text = "The quick brown fox jumps over the lazy dog"

        let (words, ranges) = try spokenRanges(text, in: lector)
        XCTAssertEqual(words, ["The", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"], lector.context)

        // Timed by playback: a burst at synthesis time would arrive within a few milliseconds.
        let first = try XCTUnwrap(ranges.first), last = try XCTUnwrap(ranges.last)
        XCTAssertGreaterThan(last.receivedAt.timeIntervalSince(first.receivedAt), 0.5,
                             "ranges arrived in a burst\(lector.context)")
        let gaps = zip(ranges, ranges.dropFirst()).map { $1.receivedAt.timeIntervalSince($0.receivedAt) }
        XCTAssertGreaterThan(gaps.filter { $0 > 0.05 }.count, gaps.count / 2, "word gaps: \(gaps)\(lector.context)")
    }

    /// During a long text (synthesis runs far ahead of playback) words keep being announced as
    /// they are heard: no gap much longer than a sentence pause. The first speech of a fresh
    /// daemon is the one seen to stall (intermittently), so this tries three fresh daemons.
    func testRangesKeepComingThroughoutALongText() throws {
        let window: TimeInterval = 2
        for attempt in 1...3 {
            let lector = try LectorFixture()
            defer { lector.shutdown() }
            let id = try lector.speak(Texts.long)
            let started = try XCTUnwrap(lector.started(id, timeout: 5), lector.context)
            Thread.sleep(until: started.receivedAt.addingTimeInterval(window))   // the observation window
            let ranges = lector.ranges(of: id).filter { $0.receivedAt <= started.receivedAt.addingTimeInterval(window) }
            let times = [started.receivedAt] + ranges.map(\.receivedAt) + [started.receivedAt.addingTimeInterval(window)]
            let longestGap = zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? window
            XCTAssertGreaterThanOrEqual(ranges.count, 4,
                                        "attempt \(attempt): only \(ranges.count) words announced in the first \(window) s\(lector.context)")
            XCTAssertLessThan(longestGap, 1.2, "attempt \(attempt): no word announced for \(longestGap) s\(lector.context)")
            XCTAssertNotNil(lector.sound(after: Date().addingTimeInterval(-0.3), timeout: 1),
                            "attempt \(attempt): the speech is no longer heard\(lector.context)")
        }
    }

    func testNonASCIIOffsetsAreUnicodeScalarOffsets() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }

        // ü, ß, ö, ï, é are 2 bytes each in UTF-8: byte offsets would cut the words wrongly.
        let (words, _) = try spokenRanges("Grüße aus Köln, naïve café", in: lector)
        XCTAssertEqual(words, ["Grüße", "aus", "Köln", "naïve", "café"], lector.context)

        // U+1D400 MATHEMATICAL BOLD CAPITAL A is outside the BMP (2 UTF-16 units, 4 UTF-8 bytes):
        // only scalar offsets stay right after it.
        let (after, _) = try spokenRanges("\u{1D400} one two three", in: lector)
        XCTAssertEqual(after, ["\u{1D400}", "one", "two", "three"], lector.context)
    }
}
