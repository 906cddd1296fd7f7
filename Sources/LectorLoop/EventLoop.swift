import CMainQueue
import CSystemd
import Glibc

/// The daemon's one event loop (sd-event) on the main thread. sd-bus, libpulse, the synthesis
/// mailbox and the main dispatch queue all dispatch here, so every piece of daemon state is
/// `@MainActor`: the compiler checks that it is touched only from this thread.
///
/// ```swift
/// let loop = try EventLoop()
/// let tick = try loop.timer { print("fired") }
/// tick.schedule(after: 1_000_000)
/// Task { @MainActor in loop.exit(0) }   // from any thread: runs on the loop
/// let code = try loop.run()
/// ```
@MainActor
public final class EventLoop {
    /// `sd_event *`.
    public let event: OpaquePointer
    /// The main dispatch queue's wake-up fd: `Task { @MainActor in }` and `DispatchQueue.main`
    /// work run on this loop, as Foundation's RunLoop does it on Linux.
    private var mainQueue: EventSource?

    public init() throws {
        var event: OpaquePointer?
        let r = sd_event_new(&event)
        guard r >= 0, let event else { throw SystemError(errno: -r, "sd_event_new") }
        self.event = event
        let handle = lector_main_queue_handle()
        mainQueue = try watch(fd: handle) { _ in
            var counter: UInt64 = 0
            _ = read(handle, &counter, 8)
            lector_main_queue_drain()
        }
    }

    /// Frees the loop's own sources; every other source must be gone (their owners close them).
    public func close() {
        mainQueue = nil
    }

    isolated deinit {
        mainQueue = nil
        sd_event_unref(event)
    }

    /// Runs until `exit` is called; returns the exit code. Only on the main thread.
    public func run() throws -> Int32 {
        let r = sd_event_loop(event)
        guard r >= 0 else { throw SystemError(errno: -r, "sd_event_loop") }
        return r
    }

    public func exit(_ code: Int32 = 0) { sd_event_exit(event, code) }

    /// CLOCK_MONOTONIC now, microseconds.
    public var now: UInt64 {
        var usec: UInt64 = 0
        sd_event_now(event, CLOCK_MONOTONIC, &usec)
        return usec
    }

    /// Calls `handler` with the epoll events whenever `fd` is ready.
    public func watch(fd: Int32, events: UInt32 = UInt32(EPOLLIN.rawValue),
                      handler: @escaping @MainActor (UInt32) -> Void) throws -> EventSource {
        let box = EventSource.Box(io: handler)
        var source: OpaquePointer?
        let r = sd_event_add_io(event, &source, fd, events, { _, _, revents, userdata in
            let box = Unmanaged<EventSource.Box>.fromOpaque(userdata!)
            MainActor.assumeIsolated { box.takeUnretainedValue().io?(revents) }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_io") }
        return EventSource(source: source, box: box)
    }

    /// A one-shot CLOCK_MONOTONIC timer, disabled until `EventSource.schedule(after:)`. It may
    /// fire up to `slack` microseconds late: sd-event runs it with whatever else wakes the loop
    /// in that window (a timer with seconds of slack costs no wake-up of its own while the loop
    /// is busy anyway).
    public func timer(slack: UInt64 = 1000, handler: @escaping @MainActor () -> Void) throws -> EventSource {
        let box = EventSource.Box(fire: handler)
        var source: OpaquePointer?
        let r = sd_event_add_time(event, &source, clockid_t(CLOCK_MONOTONIC), UInt64.max, slack, { _, _, userdata in
            let box = Unmanaged<EventSource.Box>.fromOpaque(userdata!)
            MainActor.assumeIsolated { box.takeUnretainedValue().fire?() }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_time") }
        sd_event_source_set_enabled(source, SourceState.off)
        return EventSource(source: source, box: box)
    }

    /// Handles `signal` on the loop. Block it in every thread first (`blockSignals`, before any
    /// thread starts), or its default action may kill the process from another thread.
    public func onSignal(_ signal: Int32, handler: @escaping @MainActor () -> Void) throws -> EventSource {
        let box = EventSource.Box(fire: handler)
        var source: OpaquePointer?
        let r = sd_event_add_signal(event, &source, signal, { _, _, userdata in
            let box = Unmanaged<EventSource.Box>.fromOpaque(userdata!)
            MainActor.assumeIsolated { box.takeUnretainedValue().fire?() }
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_signal") }
        return EventSource(source: source, box: box)
    }

    /// Blocks `signals` for this thread and every thread it starts afterwards.
    public nonisolated static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
