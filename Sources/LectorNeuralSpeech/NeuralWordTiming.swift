import Foundation
import LectorCore
import LectorNeural

/// espeak-ng's reading of a text (`PhonemeReading`) as a Piper voice's ids, each phoneme
/// remembering the reading scalar it came from, and the model's per-id durations back to words:
/// each word of the reading starts at the first sample of its first sounding phoneme.
///
///     let ids = NeuralWordTiming.ids(for: reading, table: voice.phonemeIDs)
///     let audio = try voice.synthesize(ids: ids.mapping.ids)
///     NeuralWordTiming.words(reading, ids, idSamples: audio.idSamples, text: text)  // [WordBoundary]
public enum NeuralWordTiming {
    public struct IDs: Sendable {
        public var mapping: PhonemeIDs.Mapping
        /// For each phoneme of `mapping.phonemes`: the index of its scalar in the reading.
        public var sources: [Int]
    }

    /// The ids as `PhonemeIDs.ids(forIPA:)` makes them (NFD, language marks out, clusters merged,
    /// `^ _ p _ … $`), with the phonemes the voice lacks left out and named in `mapping.missing`.
    public static func ids(for reading: PhonemeReading, table: PhonemeIDs) -> IDs {
        var phonemes: [(phoneme: String, source: Int)] = []
        var inLanguageMark = false
        for (index, scalar) in reading.phonemes.enumerated() {
            if scalar == "(" { inLanguageMark = true }
            if inLanguageMark {
                if scalar == ")" { inLanguageMark = false }
                continue
            }
            for part in String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars {
                phonemes.append((String(part), index))
            }
        }
        // Clusters merged as PhonemeIDs does, each keeping its first phoneme's source.
        let merged = table.mergingClusters(phonemes.map(\.phoneme))
        var sources: [Int] = []
        var position = 0
        for phoneme in merged {
            sources.append(phonemes[position].source)
            position += phoneme.unicodeScalars.count == 1 ? 1 : clusterLength(phoneme, table) ?? 1
        }
        let mapping = table.mapping(of: merged)
        let kept = zip(merged, sources).filter { table.map[$0.0] != nil }.map(\.1)
        return IDs(mapping: mapping, sources: kept)
    }

    private static func clusterLength(_ phoneme: String, _ table: PhonemeIDs) -> Int? {
        table.clusters.first { $0.joined() == phoneme }?.count
    }

    /// Word boundaries on the audio: a word of the reading starts where its first phoneme that
    /// is not a space starts (the space before a word is the pause before it).
    /// `text` gives each word's length (its run of non-space scalars).
    public static func words(_ reading: PhonemeReading, _ ids: IDs, idSamples: [Int], text: String) -> [WordBoundary] {
        // The sound of a phoneme begins during the pad id before it (Piper's `_`; measured with
        // en_US-joe-medium: a sentence's first sound 3 ms into the pad after `^`, a word after a
        // pause within 2 ms of that pad): that pad's first sample is the word's.
        let starts = Durations.idStarts(idSamples: idSamples)
        let onsets = ids.mapping.phonemes.map { starts[min(max(0, $0.ids.lowerBound - 1), idSamples.count)] }
        let scalars = Array(text.unicodeScalars)
        var boundaries: [WordBoundary] = []
        var phoneme = 0
        for start in reading.wordStarts {
            while phoneme < ids.sources.count,
                  ids.sources[phoneme] < start.phoneme || isSilent(reading.phonemes[ids.sources[phoneme]]) {
                phoneme += 1
            }
            guard phoneme < onsets.count, start.offset < scalars.count else { break }
            var end = start.offset
            while end < scalars.count, !scalars[end].properties.isWhitespace { end += 1 }
            boundaries.append(WordBoundary(start: UInt32(start.offset), length: UInt32(end - start.offset),
                                           sample: onsets[phoneme]))
        }
        return boundaries
    }

    /// A word space is the pause before the word; a stress mark is not silent (the model voices
    /// the word's onset during its frames: skipping it put words 10-100 ms after their first sound).
    private static func isSilent(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isWhitespace
    }
}
