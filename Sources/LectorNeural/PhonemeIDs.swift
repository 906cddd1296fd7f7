import Foundation

/// IPA phonemes (as espeak-ng gives them, stress marks and word spaces included) to a Piper
/// voice's ids, laid out as Piper does (piper1-gpl phoneme_ids.py): `^ _ p1 _ p2 _ … $`, where
/// each phoneme is one Unicode scalar after NFD (so accents are their own phonemes).
public struct PhonemeIDs: Sendable {
    public static let bos = "^"
    public static let pad = "_"
    public static let eos = "$"

    public let map: [String: [Int64]]
    /// Sequences merged into one phoneme before look-up, longest first (`PiperConfig.vowelClusters`).
    public let clusters: [[String]]

    public init(map: [String: [Int64]], clusters: [[String]] = []) {
        self.map = map
        self.clusters = clusters.filter { $0.count > 1 }.sorted { $0.count > $1.count }
    }

    /// `phonemes` with known clusters merged, longest match first, left to right (as piper1-gpl's
    /// _merge_known_vowel_clusters).
    public func mergingClusters(_ phonemes: [String]) -> [String] {
        guard !clusters.isEmpty else { return phonemes }
        var merged: [String] = []
        var index = 0
        while index < phonemes.count {
            if let cluster = clusters.first(where: { phonemes[index...].starts(with: $0) }) {
                merged.append(cluster.joined())
                index += cluster.count
            } else {
                merged.append(phonemes[index])
                index += 1
            }
        }
        return merged
    }

    /// The ids for one utterance and where each phoneme's ids lie.
    public struct Mapping: Equatable, Sendable {
        public var ids: [Int64]
        /// One per phoneme kept, in order: the phoneme and its ids' range in `ids`, its trailing
        /// pad included (the pad's frames are heard as the tail of that phoneme).
        public var phonemes: [(phoneme: String, ids: Range<Int>)]
        /// Phonemes the map lacks, each once, in order of first use; they are left out of `ids`.
        public var missing: [String]

        public static func == (a: Mapping, b: Mapping) -> Bool {
            a.ids == b.ids && a.missing == b.missing
                && a.phonemes.map(\.phoneme) == b.phonemes.map(\.phoneme)
                && a.phonemes.map(\.ids) == b.phonemes.map(\.ids)
        }
    }

    /// The phonemes of an espeak-ng IPA string as Piper splits them: NFD, then one per scalar;
    /// espeak-ng's language switch marks ("(en)", "(fr)") are not phonemes and go.
    public static func phonemes(ofIPA ipa: String) -> [String] {
        var text = ipa.decomposedStringWithCanonicalMapping
        while let open = text.range(of: "("), let close = text.range(of: ")", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        return text.unicodeScalars.map { String($0) }
    }

    /// Ids for `phonemes`: phonemes the map lacks are reported in `missing`, never dropped silently.
    public func mapping(of phonemes: [String]) -> Mapping {
        let pad = map[Self.pad] ?? [0]
        var ids = (map[Self.bos] ?? []) + pad
        var kept: [(phoneme: String, ids: Range<Int>)] = []
        var missing: [String] = []
        for phoneme in phonemes {
            guard let phonemeIDs = map[phoneme] else {
                if !missing.contains(phoneme) { missing.append(phoneme) }
                continue
            }
            let start = ids.count
            ids += phonemeIDs
            ids += pad
            kept.append((phoneme, start..<ids.count))
        }
        ids += map[Self.eos] ?? []
        return Mapping(ids: ids, phonemes: kept, missing: missing)
    }

    /// `mapping(of:)` of an IPA string, clusters merged; throws `missingPhonemes` unless every phoneme is known.
    public func ids(forIPA ipa: String) throws -> Mapping {
        let result = mapping(of: mergingClusters(Self.phonemes(ofIPA: ipa)))
        guard result.missing.isEmpty else { throw NeuralError.missingPhonemes(result.missing) }
        return result
    }
}
