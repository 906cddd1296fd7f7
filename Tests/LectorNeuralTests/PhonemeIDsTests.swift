import XCTest
@testable import LectorNeural

final class PhonemeIDsTests: XCTestCase {
    let ids = PhonemeIDs(map: ["_": [0], "^": [1], "$": [2], " ": [3], ".": [10], "h": [20], "i": [21],
                               "ː": [122], "ˈ": [120], "æ": [39], "t": [32], "s": [31], "c": [16], "̧": [140]])

    func testPiperLayout() throws {
        // ^ _ p1 _ p2 _ … $: the pad after BOS and after every phoneme, stress and spaces included.
        let mapping = try ids.ids(forIPA: "hiː sˈæt.")
        XCTAssertEqual(mapping.ids, [1, 0, 20, 0, 21, 0, 122, 0, 3, 0, 31, 0, 120, 0, 39, 0, 32, 0, 10, 0, 2])
        XCTAssertEqual(mapping.phonemes.map(\.phoneme), ["h", "i", "ː", " ", "s", "ˈ", "æ", "t", "."])
        XCTAssertEqual(mapping.phonemes.first?.ids, 2..<4)
        XCTAssertEqual(mapping.phonemes.last?.ids, 18..<20)
        XCTAssertTrue(mapping.missing.isEmpty)
    }

    func testNFDAndLanguageSwitchesAsPiper() {
        // ç splits into c + combining cedilla (Piper normalizes to NFD); "(en)" is espeak-ng's switch mark.
        XCTAssertEqual(PhonemeIDs.phonemes(ofIPA: "(fr)ç(en)hi"), ["c", "\u{327}", "h", "i"])
    }

    func testMissingPhonemesAreReportedByName() {
        let mapping = ids.mapping(of: PhonemeIDs.phonemes(ofIPA: "hɪz hɪt"))
        XCTAssertEqual(mapping.missing, ["ɪ", "z"])
        XCTAssertEqual(mapping.ids, [1, 0, 20, 0, 3, 0, 20, 0, 32, 0, 2])
        XCTAssertThrowsError(try ids.ids(forIPA: "hɪz")) { error in
            XCTAssertEqual(error as? NeuralError, .missingPhonemes(["ɪ", "z"]))
            XCTAssertTrue("\(error)".contains("ɪ (U+26A)"), "\(error)")
        }
    }

    func testVowelClustersMergeBeforeLookUp() throws {
        let clustered = PhonemeIDs(map: ["_": [0], "^": [1], "$": [2], "a": [14], "ɪ": [74], "aɪ": [160], "t": [32]],
                                   clusters: [["a", "ɪ"]])
        XCTAssertEqual(clustered.mergingClusters(["t", "a", "ɪ", "a", "t"]), ["t", "aɪ", "a", "t"])
        XCTAssertEqual(try clustered.ids(forIPA: "taɪt").ids, [1, 0, 32, 0, 160, 0, 32, 0, 2])
    }

    func testMultiIDPhonemeKeepsItsRange() {
        let multi = PhonemeIDs(map: ["_": [0], "^": [1], "$": [2], "x": [7, 8]])
        let mapping = multi.mapping(of: ["x", "x"])
        XCTAssertEqual(mapping.ids, [1, 0, 7, 8, 0, 7, 8, 0, 2])
        XCTAssertEqual(mapping.phonemes.map(\.ids), [2..<5, 5..<8])
    }
}

final class DurationsTests: XCTestCase {
    func testFramesToSamplesAndSpans() throws {
        let samples = try Durations.samples(frames: [2, 0, 3, 1, 4], hopLength: 256)
        XCTAssertEqual(samples, [512, 0, 768, 256, 1024])
        XCTAssertNoThrow(try Durations.check(idSamples: samples, idCount: 5, audioSamples: 2560))
        XCTAssertThrowsError(try Durations.check(idSamples: samples, idCount: 5, audioSamples: 2600))
        XCTAssertThrowsError(try Durations.check(idSamples: samples, idCount: 4, audioSamples: 2560))
        XCTAssertThrowsError(try Durations.samples(frames: [1, -1], hopLength: 256))
        XCTAssertThrowsError(try Durations.samples(frames: [.nan], hopLength: 256))
        let spans = Durations.phonemeSpans(idSamples: samples, ranges: [1..<3, 3..<4])
        XCTAssertEqual(spans.map(\.start), [512, 1280])
        XCTAssertEqual(spans.map(\.count), [768, 256])
    }
}
