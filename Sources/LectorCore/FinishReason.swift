/// Why a speech ended: the `reason` argument of `SpeechFinished`. Every id gets exactly one.
public enum FinishReason: String, Sendable {
    /// The last word was heard.
    case done
    /// `Cancel`, `Stop`, or a client asked for it to end.
    case cancelled
    /// Not spoken: queue rules refused it on arrival (a `notification` while something else
    /// speaks or waits) or it was evicted from a full queue by an `important` one.
    case dropped
    /// Replaced by a newer one of its kind (`text`: only the latest is kept; a later `progress`
    /// or `notification`).
    case superseded
    /// Not spoken: the sink it would play on is muted and the speech was not `important`
    /// (an announcement the listener cannot hear is worthless, and unmuting is theirs to do).
    case muted
    /// The synthesizer or the sound server failed (e.g. the server went away mid-speech).
    case failed
}

extension FinishReason {
    /// The finish reason for a speech the announcement queue removed.
    public init(_ outcome: QueueOutcome) {
        switch outcome {
        case .dropped: self = .dropped
        case .superseded: self = .superseded
        case .cancelled: self = .cancelled
        }
    }
}
