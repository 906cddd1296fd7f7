import Foundation
import LectorCore
import LectorNeural
@testable import LectorNeuralSpeech
import LectorSpeech
import XCTest

/// The real joe voice reading through espeak-ng's phoneme reading: every word on a sample, in
/// order, near where its sound begins. Under CI a missing voice or runtime fails, saying what to
/// install (scripts/install-deps --test); elsewhere it skips with the same message.
final class NeuralSynthesizerTests: XCTestCase {
    static let engine = try! SpeechEngine(bufferedSecondsAhead: 120)
    nonisolated(unsafe) static var loaded: Result<PiperVoice, Error>?

    func voice() throws -> PiperVoice {
        if Self.loaded == nil {
            Self.loaded = Result {
                guard let path = RuntimeLocator.packagedVoices(sitePackages: RuntimeLocator.sitePackages())
                    .first(where: { $0.hasSuffix("en_US-joe-medium.onnx") })
                else { throw NeuralError.modelUnreadable(path: "en_US-joe-medium.onnx", reason: "not found in site-packages") }
                return try PiperVoice(modelPath: path)
            }
        }
        switch Self.loaded! {
        case .success(let voice): return voice
        case .failure(let error):
            let message = "no real Piper voice: \(error); install with: scripts/install-deps --test"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message); throw error }
            throw XCTSkip(message)
        }
    }

    func speak(_ text: String, rate: Double = 1) throws -> (words: [WordBoundary], samples: [Int16], ok: Bool) {
        let voice = try voice()
        let espeakVoice = try VoiceCatalog(voices: Self.engine.voices).resolve(language: nil, voice: voice.config.espeakVoice)
        let neural = NeuralSynthesizer(voice: voice, espeakVoice: espeakVoice, espeak: Self.engine, mailbox: Self.engine.mailbox)
        defer { neural.shutdown() }
        var request = try SpeechRequest(text: text)
        request.rate = rate
        let outputs = neural.speak(id: 1, request: request, cancellation: SynthesisCancellation())
        var words: [WordBoundary] = [], samples: [Int16] = [], ok = false
        for output in outputs {
            switch output {
            case .word(_, let word): words.append(word)
            case .audio(_, let pcm): samples += pcm
            case .finished(_, let success, let total):
                ok = success
                XCTAssertEqual(total, samples.count)
            }
        }
        return (words, samples, ok)
    }

    func testEveryWordIsPlacedInOrderOnTheAudio() throws {
        let text = "He sat on the mat at 10 Downing St."
        let spoken = try speak(text)
        XCTAssertTrue(spoken.ok)
        XCTAssertEqual(spoken.words.map(\.start), [0, 3, 7, 14, 18, 21, 24, 32], "\(spoken.words)")
        XCTAssertEqual(spoken.words.map(\.length), [2, 3, 2, 3, 2, 2, 7, 3])
        XCTAssertEqual(spoken.words.map(\.sample), spoken.words.map(\.sample).sorted())
        XCTAssertLessThan(spoken.words.last!.sample, spoken.samples.count)
        XCTAssertGreaterThan(spoken.samples.map { abs(Int($0)) }.max() ?? 0, 20_000, "peak-normalized audio")
    }

    /// A word after a pause: its boundary is where sound resumes, within 40 ms (the highlight's budget).
    func testAWordAfterAPauseStartsWhereItsSoundDoes() throws {
        let text = "Stop. Then go."
        let spoken = try speak(text)
        let then = try XCTUnwrap(spoken.words.first { $0.start == 6 }, "\(spoken.words)")
        // 10-ms windows from 300 ms before the boundary: the pause (peaks under 500) and the onset
        // after it (the first window above), which a soft "th" reaches well below speech level.
        let window = 22050 / 100
        let first = max(0, then.sample - 30 * window)
        let peaks = stride(from: first, to: min(spoken.samples.count, then.sample + 10 * window), by: window)
            .map { spoken.samples[$0..<min(spoken.samples.count, $0 + window)].map { abs(Int($0)) }.max() ?? 0 }
        let quiet = try XCTUnwrap(peaks.indices.last { $0 < 30 && peaks[$0] < 500 }, "no pause before the word: \(peaks)")
        var quietRun = 0
        while quiet - quietRun >= 0, peaks[quiet - quietRun] < 500 { quietRun += 1 }
        let onset = first + (quiet + 1) * window
        let offBy = Double(then.sample - onset) / 22.05
        print("neural: \"Then\" after \(quietRun * 10) ms of pause; placed \(String(format: "%+.1f", offBy)) ms from its onset; "
              + "peaks (10 ms): \(peaks)")
        XCTAssertGreaterThanOrEqual(quietRun, 5, "no pause before the word: the sentence's full stop was lost")
        XCTAssertLessThanOrEqual(abs(offBy), 40, "the word is placed more than 40 ms from its sound's onset")
    }

    func testAFasterRateIsShorterAndKeepsItsWords() throws {
        let normal = try speak("Call me Ishmael. Some years ago, never mind how long.")
        let fast = try speak("Call me Ishmael. Some years ago, never mind how long.", rate: 2)
        XCTAssertEqual(normal.words.map(\.start), fast.words.map(\.start))
        XCTAssertLessThan(Double(fast.samples.count) / Double(normal.samples.count), 0.75, "rate 2 is not faster")
    }
}
