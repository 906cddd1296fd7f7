import CSystemd
import Glibc

/// The daemon's one event loop (sd-event). sd-bus, libpulse and the synthesis mailbox all
/// dispatch here, so every piece of daemon state is touched from this one thread, without locks.
///
/// Not thread-safe: create, use and run it on one thread.
public final class EventLoop {
    /// `sd_event *`.
    public let event: OpaquePointer

    public init() throws {
        var event: OpaquePointer?
        let r = sd_event_new(&event)
        guard r >= 0, let event else { throw SystemError(errno: -r, "sd_event_new") }
        self.event = event
    }

    deinit { sd_event_unref(event) }

    /// Runs until `exit` is called; returns the exit code.
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
                      handler: @escaping (UInt32) -> Void) throws -> EventSource {
        let box = EventSource.Box(io: handler)
        var source: OpaquePointer?
        let r = sd_event_add_io(event, &source, fd, events, { _, _, revents, userdata in
            Unmanaged<EventSource.Box>.fromOpaque(userdata!).takeUnretainedValue().io?(revents)
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_io") }
        return EventSource(source: source, box: box)
    }

    /// A one-shot CLOCK_MONOTONIC timer, disabled until `EventSource.schedule(after:)`.
    public func timer(handler: @escaping () -> Void) throws -> EventSource {
        let box = EventSource.Box(fire: handler)
        var source: OpaquePointer?
        let r = sd_event_add_time(event, &source, clockid_t(CLOCK_MONOTONIC), UInt64.max, 1000, { _, _, userdata in
            Unmanaged<EventSource.Box>.fromOpaque(userdata!).takeUnretainedValue().fire?()
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_time") }
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        return EventSource(source: source, box: box)
    }

    /// Handles `signal` on the loop. Block it in every thread first (`blockSignals`, before any
    /// thread starts), or its default action may kill the process from another thread.
    public func onSignal(_ signal: Int32, handler: @escaping () -> Void) throws -> EventSource {
        let box = EventSource.Box(fire: handler)
        var source: OpaquePointer?
        let r = sd_event_add_signal(event, &source, signal, { _, _, userdata in
            Unmanaged<EventSource.Box>.fromOpaque(userdata!).takeUnretainedValue().fire?()
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let source else { throw SystemError(errno: -r, "sd_event_add_signal") }
        return EventSource(source: source, box: box)
    }

    /// Blocks `signals` for this thread and every thread it starts afterwards.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
