/// The announcements waiting for the one speech output, ordered and pruned by speech-dispatcher's
/// SSIP priority rules, so people who know `spd-say -P` are not surprised. Pure bookkeeping: the
/// daemon passes in what is speaking now and carries out the returned `QueueAdmission`.
///
/// Rules, as speech-dispatcher implements them (`resolve_priorities()` in `speaking.c`):
/// - `important`: FIFO, spoken before anything else; interrupts whatever non-important speech
///   is speaking (`cancelled`) and cancels waiting `notification`s. Never interrupted itself.
/// - `message`: FIFO after `important`; cancels waiting and speaking `text`/`notification`/`progress`.
/// - `text`: only the latest is kept: supersedes waiting texts and interrupts a speaking text
///   (`superseded`); cancels waiting and speaking `notification`/`progress`.
/// - `notification`: dropped on arrival when anything else is waiting or speaking; a newer
///   notification supersedes waiting and speaking ones.
/// - `progress`: like `notification` (cancels notifications), except that progress messages never
///   interrupt each other and the last of a series is always spoken: a series is one sender's
///   progress messages; a new one supersedes the same sender's waiting one, and when a more
///   important arrival would cancel the waiting one, it is promoted to `message` instead (SSIP
///   speaks the series' last message "with the priority message").
///
/// Bounded: at `capacity` a new speech is refused (`AnnouncementRefusal.queueFull`), except that an
/// `important` one evicts the oldest least important waiting speech (`dropped`); and no sender may
/// have more than `maxWaitingPerSender` waiting, so one flooding client cannot fill the queue.
///
/// ```swift
/// var queue = AnnouncementQueue<String>(capacity: 256, maxWaitingPerSender: 32)
/// _ = try queue.enqueue("Build done", id: 1, priority: .message, sender: ":1.7", speaking: nil)
/// _ = try queue.enqueue("Battery low", id: 2, priority: .important, sender: ":1.9", speaking: nil)
/// queue.next()?.id   // 2: important first
/// ```
public struct AnnouncementQueue<Job> {
    struct Entry {
        var id: UInt64
        var job: Job
        var priority: SpeechPriority
        var sender: String
        /// A `progress` message kept as the last of its series, now spoken as a `message`.
        var promoted = false

        var effectivePriority: SpeechPriority { promoted ? .message : priority }
    }

    public let capacity: Int
    public let maxWaitingPerSender: Int
    /// In arrival order; speaking order is (priority rank, arrival).
    private var entries: [Entry] = []
    private var waitingBySender: [String: Int] = [:]

    /// `maxWaitingPerSender` nil means no per-sender limit below `capacity`. Keep `capacity` a few
    /// times `maxWaitingPerSender` so several clients' `important` speeches always fit.
    public init(capacity: Int, maxWaitingPerSender: Int? = nil) {
        precondition(capacity >= 1, "an announcement queue needs room for at least one speech")
        self.capacity = capacity
        self.maxWaitingPerSender = min(max(maxWaitingPerSender ?? capacity, 1), capacity)
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Waiting speeches in the order `next()` would hand them out (for `lector queue`). A promoted
    /// `progress` message shows as `message`.
    public var waiting: [(id: UInt64, priority: SpeechPriority, sender: String)] {
        speakingOrder.map { (entries[$0].id, entries[$0].effectivePriority, entries[$0].sender) }
    }

    /// The waiting speech with this id, if any.
    public func job(id: UInt64) -> Job? { entries.first { $0.id == id }?.job }

    /// Waiting ids in speaking order.
    public var ids: [UInt64] { speakingOrder.map { entries[$0].id } }

    public func waitingCount(sender: String) -> Int { waitingBySender[sender] ?? 0 }

    /// Offers a speech. `speaking` is the priority `next()` returned for the speech being spoken
    /// now (nil if none). Throws without changing anything when there is no room for it.
    public mutating func enqueue(_ job: Job, id: UInt64, priority: SpeechPriority, sender: String,
                                 speaking: SpeechPriority?) throws(AnnouncementRefusal) -> QueueAdmission {
        var removals: [Int: QueueOutcome] = [:]   // entry index -> reason
        var promotions: [Int] = []
        var interrupt: QueueOutcome?

        func each(_ kind: SpeechPriority, _ body: (Int) -> Void) {
            for index in entries.indices where entries[index].effectivePriority == kind { body(index) }
        }
        // Waiting progress messages are the last of their series (newer ones supersede older):
        // a more important arrival promotes them rather than cancelling them.
        func promoteProgress() { each(.progress) { promotions.append($0) } }

        switch priority {
        case .important:
            each(.notification) { removals[$0] = .cancelled }
            promoteProgress()
            if let speaking, speaking != .important { interrupt = .cancelled }
        case .message:
            each(.text) { removals[$0] = .cancelled }
            each(.notification) { removals[$0] = .cancelled }
            promoteProgress()
            if let speaking, [.text, .notification, .progress].contains(speaking) { interrupt = .cancelled }
        case .text:
            each(.text) { removals[$0] = .superseded }
            each(.notification) { removals[$0] = .cancelled }
            promoteProgress()
            switch speaking {
            case .text?: interrupt = .superseded
            case .notification?, .progress?: interrupt = .cancelled
            default: break
            }
        case .notification:
            let othersWaiting = entries.contains { $0.effectivePriority != .notification }
            if othersWaiting || (speaking != nil && speaking != .notification) {
                return QueueAdmission(accepted: false)
            }
            each(.notification) { removals[$0] = .superseded }
            if speaking == .notification { interrupt = .superseded }
        case .progress:
            each(.notification) { removals[$0] = .cancelled }
            for index in entries.indices where entries[index].priority == .progress && entries[index].sender == sender {
                removals[index] = .superseded
            }
            if speaking == .notification { interrupt = .cancelled }
        }

        // Room: checked on what remains, so a text replacing the sender's own text always fits.
        let senderRemoved = removals.keys.filter { entries[$0].sender == sender }.count
        if waitingCount(sender: sender) - senderRemoved + 1 > maxWaitingPerSender {
            throw .senderQueueFull(sender: sender, limit: maxWaitingPerSender)
        }
        if entries.count - removals.count + 1 > capacity {
            guard priority == .important, let victim = evictionCandidate(sparing: removals) else {
                throw .queueFull(capacity: capacity)
            }
            removals[victim] = .dropped
        }

        for index in promotions where removals[index] == nil { entries[index].promoted = true }
        let removed = removals.keys.sorted().map { QueueRemoval(id: entries[$0].id, reason: removals[$0]!) }
        for index in removals.keys.sorted(by: >) { forget(at: index) }
        entries.append(Entry(id: id, job: job, priority: priority, sender: sender))
        waitingBySender[sender, default: 0] += 1
        return QueueAdmission(accepted: true, removed: removed, interruptCurrent: interrupt)
    }

    /// Takes the next speech `allowed` lets through (e.g. only `important` during a call): the
    /// most important first, FIFO within a priority. Its `priority` is what to pass as `speaking`
    /// while it speaks (`message` for a promoted `progress`).
    public mutating func next(where allowed: (SpeechPriority) -> Bool = { _ in true })
        -> (id: UInt64, job: Job, priority: SpeechPriority)? {
        guard let index = speakingOrder.first(where: { allowed(entries[$0].effectivePriority) }) else { return nil }
        let entry = entries[index]
        forget(at: index)
        return (entry.id, entry.job, entry.effectivePriority)
    }

    /// Removes a waiting speech (a client's `Cancel`); nil if no waiting speech has that id.
    public mutating func remove(id: UInt64) -> Job? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        let job = entries[index].job
        forget(at: index)
        return job
    }

    /// Empties the queue, returning the ids in speaking order.
    public mutating func removeAll() -> [UInt64] {
        defer {
            entries.removeAll()
            waitingBySender.removeAll()
        }
        return ids
    }

    // MARK: - Internals

    private static func rank(_ priority: SpeechPriority) -> Int {
        switch priority {
        case .important: 0
        case .message: 1
        case .text: 2
        case .notification: 3
        case .progress: 4
        }
    }

    /// Entry indices sorted by (rank, arrival).
    private var speakingOrder: [Int] {
        entries.indices.sorted { a, b in
            let ra = Self.rank(entries[a].effectivePriority), rb = Self.rank(entries[b].effectivePriority)
            return ra != rb ? ra < rb : a < b
        }
    }

    /// The oldest of the least important waiting speeches, never an `important` one.
    private func evictionCandidate(sparing removals: [Int: QueueOutcome]) -> Int? {
        entries.indices
            .filter { removals[$0] == nil && entries[$0].priority != .important }
            .min { a, b in
                let ra = Self.rank(entries[a].effectivePriority), rb = Self.rank(entries[b].effectivePriority)
                return ra != rb ? ra > rb : a < b
            }
    }

    private mutating func forget(at index: Int) {
        let sender = entries.remove(at: index).sender
        let left = (waitingBySender[sender] ?? 1) - 1
        waitingBySender[sender] = left > 0 ? left : nil
    }
}

extension AnnouncementQueue.Entry: Sendable where Job: Sendable {}
extension AnnouncementQueue: Sendable where Job: Sendable {}
