/// espeak-ng starts every utterance with a few milliseconds of near-silence. Dropping it is the
/// cheapest latency win there is: the listener hears the first word that much sooner.
public enum LeadingSilence {
    /// Peak below which a sample counts as silence (espeak's speech peaks are in the thousands).
    public static let threshold: Int16 = 64
    /// Samples kept before the first sound so the onset is not clipped (about 2 ms at 22 kHz).
    public static let keep = 44

    /// How many samples at the start of `samples` may be dropped. Returns `samples.count` when
    /// all of it is silent (the caller keeps trimming into the next chunk).
    public static func droppable(_ samples: UnsafeBufferPointer<Int16>, threshold: Int16 = threshold) -> Int {
        guard let first = samples.firstIndex(where: { $0 > threshold || $0 < -threshold }) else {
            return samples.count
        }
        return max(0, first - keep)
    }
}
