import LectorLoop

/// A loop whose clock only moves when the test says so, as swift-nio's `EmbeddedEventLoop`:
/// components built on `LoopScheduling` run their timing (ramps, timeouts, retries) in-process,
/// without sleeps and without sd-event.
///
/// ```swift
/// let loop = ManualLoop()
/// let policy = try AudioPolicyDriver(loop: loop, mirror: server, narrator: narrator, announcer: announcer, journal: store)
/// loop.advanceTime(by: 30_000)   // fires every timer due within the next 30 ms, in order
/// ```
@MainActor
public final class ManualLoop: LoopScheduling {
    /// Microseconds; starts away from 0 so "time 0" is never special.
    public private(set) var now: UInt64 = 1_000_000
    private var timers: [WeakTimer] = []

    public init() {}

    public func makeTimer(_ handler: @escaping @MainActor () -> Void) throws -> any LoopTimer {
        let timer = ManualTimer(loop: self, handler: handler)
        timers.removeAll { $0.timer == nil }
        timers.append(WeakTimer(timer: timer))
        return timer
    }

    /// Moves the clock forward by `microseconds`, firing each timer that comes due on the way at
    /// its own time, earliest first (also timers that a handler arms meanwhile).
    public func advanceTime(by microseconds: UInt64) {
        let end = now + microseconds
        while let next = nextDue(before: end) {
            now = max(now, next.deadline ?? now)
            next.fire()
        }
        now = end
    }

    /// Fires what is due now (timers scheduled `after: 0`).
    public func run() { advanceTime(by: 0) }

    /// Timers armed now, for assertions ("nothing is scheduled while idle").
    public var armedTimers: Int { timers.filter { $0.timer?.isScheduled == true }.count }

    private func nextDue(before end: UInt64) -> ManualTimer? {
        timers.compactMap(\.timer).filter { ($0.deadline ?? .max) <= end }.min { $0.deadline! < $1.deadline! }
    }

    private struct WeakTimer {
        weak var timer: ManualTimer?
    }
}

@MainActor
private final class ManualTimer: LoopTimer {
    private weak var loop: ManualLoop?
    private var handler: (@MainActor () -> Void)?
    private(set) var deadline: UInt64?

    init(loop: ManualLoop, handler: @escaping @MainActor () -> Void) {
        self.loop = loop
        self.handler = handler
    }

    private var now: UInt64 { loop?.now ?? 0 }

    func schedule(after microseconds: UInt64) { deadline = now + microseconds }

    func schedule(noLaterThan microseconds: UInt64) {
        if let deadline, deadline <= now + microseconds { return }
        schedule(after: microseconds)
    }

    func cancel() { deadline = nil }

    func close() {
        deadline = nil
        handler = nil
    }

    var isScheduled: Bool { deadline != nil }

    func fire() {
        deadline = nil
        handler?()
    }
}
