/// Why a speech ended: the `reason` argument of `SpeechFinished`. Every id gets exactly one.
public enum FinishReason: String, Sendable {
    /// The last word was heard.
    case done
    /// `Cancel`, `Stop`, or a client asked for it to end.
    case cancelled
    /// The synthesizer or the sound server failed (e.g. the server went away mid-speech).
    case failed
}
