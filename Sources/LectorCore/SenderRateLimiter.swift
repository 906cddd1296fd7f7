/// Per-sender token buckets for `Speak`, so one flooding client is told to slow down
/// (`AnnouncementRefusal.rateLimited`) while the others go on. A sender is a D-Bus unique name
/// (`:1.42`); time comes in as microseconds from any monotonic clock, so tests need no clock.
///
/// `important` speeches draw from a second bucket of their own: a client that floods with
/// ordinary messages can still raise its alarm, and marking everything `important` does not escape
/// the limit (exempting them would, and important speeches interrupt everyone else).
///
/// Memory stays bounded: at most `maxSenders` are tracked. A sender whose buckets have refilled is
/// indistinguishable from a new one and is forgotten first; if every tracked sender is still busy,
/// the one seen longest ago is forgotten (it starts again with a full burst).
///
/// ```swift
/// var limiter = SenderRateLimiter(burst: 10, perSecond: 2, maxSenders: 1024)
/// limiter.admit(sender: ":1.42", at: now)   // true until 10 arrive faster than 2 a second
/// ```
public struct SenderRateLimiter: Sendable {
    struct Bucket: Sendable {
        var tokens: Double
        var updated: UInt64
    }

    struct Sender: Sendable {
        var ordinary: Bucket
        var important: Bucket
        var lastSeen: UInt64
    }

    public let burst: Int
    public let perSecond: Double
    public let importantBurst: Int
    public let importantPerSecond: Double
    public let maxSenders: Int
    private var senders: [String: Sender] = [:]

    /// `importantBurst`/`importantPerSecond` default to the ordinary allowance (a separate bucket
    /// of the same size).
    public init(burst: Int, perSecond: Double, maxSenders: Int,
                importantBurst: Int? = nil, importantPerSecond: Double? = nil) {
        precondition(burst >= 1 && perSecond >= 0 && maxSenders >= 1, "invalid rate limit")
        self.burst = burst
        self.perSecond = perSecond
        self.importantBurst = max(importantBurst ?? burst, 1)
        self.importantPerSecond = max(importantPerSecond ?? perSecond, 0)
        self.maxSenders = maxSenders
    }

    /// Senders currently tracked (at most `maxSenders`).
    public var trackedSenders: Int { senders.count }

    /// Takes one token from the sender's bucket; false means refuse this speech.
    public mutating func admit(sender: String, at now: UInt64, important: Bool = false) -> Bool {
        if senders[sender] == nil { makeRoom(at: now) }
        var state = senders[sender] ?? Sender(ordinary: Bucket(tokens: Double(burst), updated: now),
                                              important: Bucket(tokens: Double(importantBurst), updated: now),
                                              lastSeen: now)
        state.lastSeen = max(state.lastSeen, now)
        let admitted = important
            ? Self.take(&state.important, at: now, burst: importantBurst, perSecond: importantPerSecond)
            : Self.take(&state.ordinary, at: now, burst: burst, perSecond: perSecond)
        senders[sender] = state
        return admitted
    }

    /// Drops a sender's state, e.g. when its bus name goes away.
    public mutating func forget(sender: String) {
        senders[sender] = nil
    }

    private static func take(_ bucket: inout Bucket, at now: UInt64, burst: Int, perSecond: Double) -> Bool {
        refill(&bucket, at: now, burst: burst, perSecond: perSecond)
        guard bucket.tokens >= 1 else { return false }
        bucket.tokens -= 1
        return true
    }

    /// Adds what accrued since the last update; a clock going backwards adds nothing.
    private static func refill(_ bucket: inout Bucket, at now: UInt64, burst: Int, perSecond: Double) {
        guard now > bucket.updated else { return }
        let seconds = Double(now - bucket.updated) / 1_000_000
        bucket.tokens = min(Double(burst), bucket.tokens + seconds * perSecond)
        bucket.updated = now
    }

    private func isIdle(_ state: Sender, at now: UInt64) -> Bool {
        var ordinary = state.ordinary, important = state.important
        Self.refill(&ordinary, at: now, burst: burst, perSecond: perSecond)
        Self.refill(&important, at: now, burst: importantBurst, perSecond: importantPerSecond)
        return ordinary.tokens >= Double(burst) && important.tokens >= Double(importantBurst)
    }

    /// Before tracking a new sender at the limit: forget the idle ones, else the stalest one.
    private mutating func makeRoom(at now: UInt64) {
        guard senders.count >= maxSenders else { return }
        senders = senders.filter { !isIdle($0.value, at: now) }
        if senders.count >= maxSenders, let stalest = senders.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            senders[stalest.key] = nil
        }
    }
}
