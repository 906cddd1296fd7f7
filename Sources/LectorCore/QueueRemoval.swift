/// A waiting speech the queue took out when another arrived, and why. Reported so the daemon can
/// send its `SpeechFinished` at once: every id ends exactly once.
///
/// ```swift
/// QueueRemoval(id: 7, reason: .superseded)
/// ```
public struct QueueRemoval: Equatable, Hashable, Sendable {
    public var id: UInt64
    public var reason: QueueOutcome

    public init(id: UInt64, reason: QueueOutcome) {
        self.id = id
        self.reason = reason
    }
}
