/// Why a speech ended: the `reason` argument of `SpeechFinished`. Every id gets exactly one.
public enum FinishReason: String, Sendable {
    /// The last word was heard.
    case done
    /// `Cancel`, `Stop`, or a client asked for it to end.
    case cancelled
    /// Not spoken: the sink it would play on is muted and the speech was not `important`
    /// (an announcement the listener cannot hear is worthless, and unmuting is theirs to do).
    case muted
    /// The synthesizer or the sound server failed (e.g. the server went away mid-speech).
    case failed
}
