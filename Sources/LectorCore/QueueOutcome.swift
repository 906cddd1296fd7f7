/// Why the announcement queue ended a speech before it was (fully) heard. The daemon maps each to
/// the `reason` of `SpeechFinished`; the queue never reports `done`, `muted` or `failed`.
///
/// ```swift
/// admission.removed.first?.reason   // .superseded: a newer `text` replaced it
/// ```
public enum QueueOutcome: String, Sendable, CaseIterable {
    /// Never spoken: refused on arrival (a `notification` while something else is queued or
    /// speaking) or evicted from a full queue to make room for an `important` one.
    case dropped
    /// Replaced by a newer speech of the same kind: `text` by `text`, `notification` by
    /// `notification`, `progress` by the same sender's next `progress`.
    case superseded
    /// Cut off or removed by a more important arrival (SSIP's priority rules).
    case cancelled
}
