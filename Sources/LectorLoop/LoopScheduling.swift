/// What a component needs of the event loop: its monotonic clock and one-shot timers. The
/// daemon passes its `EventLoop`; in-process tests pass a manual loop whose time only moves when
/// the test says so (`ManualLoop.advanceTime(by:)` in LectorTestKit), so timing scenarios run
/// without sleeps and without a sound server.
///
/// ```swift
/// let ramp = try loop.makeTimer { step() }
/// ramp.schedule(after: 10_000)   // microseconds
/// ```
@MainActor
public protocol LoopScheduling: AnyObject {
    /// CLOCK_MONOTONIC now, microseconds.
    var now: UInt64 { get }
    /// A one-shot timer, disarmed until scheduled.
    func makeTimer(_ handler: @escaping @MainActor () -> Void) throws -> any LoopTimer
}

/// A one-shot timer of a `LoopScheduling` loop.
@MainActor
public protocol LoopTimer: AnyObject {
    func schedule(after microseconds: UInt64)
    /// Like `schedule(after:)`, but an armed timer due sooner stays as it is.
    func schedule(noLaterThan microseconds: UInt64)
    func cancel()
    /// Disarms it for good; its handler and what it captured are let go.
    func close()
    var isScheduled: Bool { get }
}

extension EventLoop: LoopScheduling {
    public func makeTimer(_ handler: @escaping @MainActor () -> Void) throws -> any LoopTimer {
        try timer(handler: handler)
    }
}

extension EventSource: LoopTimer {}
