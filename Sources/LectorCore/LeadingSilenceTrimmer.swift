/// Drops the silence espeak-ng puts before an utterance, across as many chunks as it spans,
/// and remembers how much it dropped so word positions can be shifted to match.
///
/// ```swift
/// var trimmer = LeadingSilenceTrimmer()
/// let kept = trimmer.trim(firstChunk)   // the chunk from just before the first sound
/// word.sample - trimmer.dropped         // where that word now starts
/// ```
public struct LeadingSilenceTrimmer: Sendable {
    public private(set) var dropped = 0
    public private(set) var isDone: Bool

    /// `enabled: false` keeps everything (narration keeps the pauses between its segments).
    public init(enabled: Bool = true) {
        isDone = !enabled
    }

    public mutating func trim(_ samples: [Int16]) -> ArraySlice<Int16> {
        guard !isDone else { return samples[...] }
        let drop = samples.withUnsafeBufferPointer { LeadingSilence.droppable($0) }
        dropped += drop
        if drop < samples.count { isDone = true }
        return samples[drop...]
    }
}
