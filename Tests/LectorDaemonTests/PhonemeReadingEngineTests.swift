import LectorCore
import LectorSpeech
import XCTest

/// `SpeechEngine.phonemeReading` through the real espeak-ng: what a neural voice is given.
final class PhonemeReadingEngineTests: XCTestCase {
    private static let engine = try! SpeechEngine(bufferedSecondsAhead: 1)

    private func reading(_ text: String, voice name: String = "en-us") throws -> PhonemeReading {
        let voice = try VoiceCatalog(voices: Self.engine.voices).resolve(language: nil, voice: name)
        return try XCTUnwrap(Self.engine.phonemeReading(of: try SpeechRequest(text: text), voice: voice), "no reading")
    }

    /// Function words joined and a number and an abbreviation expanded, yet every word is placed
    /// by its own offset (DESIGN-NOTES, "Neural voices", checked with espeak-ng 1.51).
    func testEveryWordIsPlacedByItsOffset() throws {
        let reading = try reading("He sat on the mat at 10 Downing St.")
        let phonemes = String(String.UnicodeScalarView(reading.phonemes))
        print("phonemes: \(phonemes)")
        XCTAssertTrue(phonemes.contains("ˈæt"), "IPA with stress marks: \(phonemes)")
        XCTAssertTrue(phonemes.contains(" "), "word spaces: \(phonemes)")
        let words = reading.wordStarts.map(\.offset)
        // He, sat, on (+the), mat, at, 10, Downing, St.
        XCTAssertEqual(words, [0, 3, 7, 14, 18, 21, 24, 32], "\(reading.wordStarts) in \(phonemes)")
        XCTAssertEqual(reading.offsets.count, reading.phonemes.count)
    }

    /// The reading uses the voice's own text handling, and is the same however often it is asked
    /// (the engine's synthesis state does not leak into it).
    /// Clause punctuation goes back after its word (espeak-ng 1.51 leaves it out), as Piper's
    /// voices are trained: their pauses and melody come from it.
    func testClausePunctuationIsKept() throws {
        let reading = try reading("Whenever I find myself grim about the mouth; whenever it is damp, I go.")
        let phonemes = String(String.UnicodeScalarView(reading.phonemes))
        XCTAssertTrue(phonemes.contains("θ; "), phonemes)
        XCTAssertTrue(phonemes.contains("p, "), phonemes)
        XCTAssertTrue(phonemes.hasSuffix("."), phonemes)
        XCTAssertEqual(reading.clauses(atLeast: 20).count, 3, phonemes)
    }

    func testAReadingIsStable() throws {
        let first = try reading("Call me Ishmael. Some years ago, never mind how long precisely.")
        let second = try reading("Call me Ishmael. Some years ago, never mind how long precisely.")
        XCTAssertEqual(first, second)
        XCTAssertEqual(first.wordStarts.first?.offset, 0)
        XCTAssertGreaterThanOrEqual(first.wordStarts.count, 10, "\(first.wordStarts)")
    }

    /// A lexicon's pronunciation (`[[…]]` espeak-ng phonemes, `phonemeInput`) is what the
    /// neural voice says too: its IPA in the reading, the word still at its own offset, and
    /// the words around it placed.
    func testALexiconsPhonemesAreRead() throws {
        let voice = try VoiceCatalog(voices: Self.engine.voices).resolve(language: nil, voice: "en-us")
        var request = try SpeechRequest(text: "Ask [[h3:m'aI@ni]] now.")
        request.phonemeInput = true
        let reading = try XCTUnwrap(Self.engine.phonemeReading(of: request, voice: voice))
        let phonemes = String(String.UnicodeScalarView(reading.phonemes))
        print("phonemes: \(phonemes); words \(reading.wordStarts)")
        XCTAssertTrue(phonemes.contains("hɜːmˈaɪəni"), "the lexicon's phonemes are not read: \(phonemes)")
        XCTAssertFalse(phonemes.contains("["), "the brackets are read as text: \(phonemes)")
        // "Ask", the phonemes (after their brackets, as espeak-ng's own voice places them), "now".
        XCTAssertEqual(reading.wordStarts.map(\.offset), [0, 6, 19], "\(reading.wordStarts)")
    }
}
