/// What happened when a speech was offered to the `AnnouncementQueue`: whether it waits, which
/// waiting speeches it displaced, and whether the one speaking now must stop. The queue only
/// decides; the daemon stops audio and emits the signals.
///
/// ```swift
/// let admission = try queue.enqueue(job, id: 9, priority: .message, sender: ":1.42", speaking: .text)
/// admission.accepted            // true: it waits
/// admission.interruptCurrent    // .cancelled: stop the text being spoken
/// ```
public struct QueueAdmission: Equatable, Sendable {
    /// False: the new speech was dropped at once (finish it with `QueueOutcome.dropped`).
    public var accepted: Bool
    /// Waiting speeches taken out of the queue, in the order they were waiting.
    public var removed: [QueueRemoval]
    /// Non-nil: the speech being spoken must stop now and finish with this reason.
    public var interruptCurrent: QueueOutcome?

    public init(accepted: Bool, removed: [QueueRemoval] = [], interruptCurrent: QueueOutcome? = nil) {
        self.accepted = accepted
        self.removed = removed
        self.interruptCurrent = interruptCurrent
    }
}
