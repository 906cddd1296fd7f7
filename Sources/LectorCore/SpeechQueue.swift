/// Speeches waiting for the synthesizer, first come first served.
///
/// Owned by the daemon's event loop. Priority rules (SSIP's important/message/text/...) will
/// live here, so the loop only asks "what next?" and "cancel this".
public struct SpeechQueue<Job> {
    public private(set) var pending: [(id: UInt64, job: Job)] = []

    public init() {}

    public var isEmpty: Bool { pending.isEmpty }

    public mutating func enqueue(_ job: Job, id: UInt64) {
        pending.append((id, job))
    }

    public mutating func next() -> (id: UInt64, job: Job)? {
        pending.isEmpty ? nil : pending.removeFirst()
    }

    /// The first waiting speech `allowed` lets through, e.g. only `important` ones during a call.
    public mutating func next(where allowed: (Job) -> Bool) -> (id: UInt64, job: Job)? {
        guard let index = pending.firstIndex(where: { allowed($0.job) }) else { return nil }
        return pending.remove(at: index)
    }

    /// Removes a waiting speech; nil if no waiting speech has that id.
    public mutating func remove(id: UInt64) -> Job? {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return nil }
        return pending.remove(at: index).job
    }

    /// Empties the queue, returning the ids in the order they were waiting.
    public mutating func removeAll() -> [UInt64] {
        defer { pending.removeAll() }
        return pending.map(\.id)
    }
}
