/// The model's per-id durations (frames, from the graph's `Ceil` node) as samples, and checks
/// that they account for the audio exactly: what puts each word on a sample.
public enum Durations {
    /// Samples per id: frames × hop length. Frames are whole numbers (they come from Ceil);
    /// a negative or non-finite one is a broken model.
    public static func samples(frames: [Float], hopLength: Int) throws -> [Int] {
        try frames.map { frame in
            guard frame.isFinite, frame >= 0, frame < 1e9 else {
                throw NeuralError.badOutput("a phoneme duration of \(frame) frames")
            }
            return Int(frame.rounded()) * hopLength
        }
    }

    /// Checks `idSamples` (one per id) against the audio's length.
    public static func check(idSamples: [Int], idCount: Int, audioSamples: Int) throws {
        guard idSamples.count == idCount else {
            throw NeuralError.badOutput("\(idSamples.count) durations for \(idCount) phoneme ids")
        }
        let total = idSamples.reduce(0, +)
        guard total == audioSamples else {
            throw NeuralError.badOutput("durations add up to \(total) samples, the audio has \(audioSamples)")
        }
    }

    /// Where each id starts on the audio, and the audio's end last: `idSamples.count + 1` samples.
    public static func idStarts(idSamples: [Int]) -> [Int] {
        var starts = [0]
        starts.reserveCapacity(idSamples.count + 1)
        for samples in idSamples { starts.append(starts.last! + samples) }
        return starts
    }

    /// Each phoneme's first sample and length, from per-id samples and the ranges of `PhonemeIDs.Mapping`.
    public static func phonemeSpans(idSamples: [Int], ranges: [Range<Int>]) -> [(start: Int, count: Int)] {
        let starts = idStarts(idSamples: idSamples)
        return ranges.map { range in
            let start = starts[min(range.lowerBound, idSamples.count)]
            return (start, starts[min(range.upperBound, idSamples.count)] - start)
        }
    }
}
