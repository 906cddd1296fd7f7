import CSystemd

/// An sd-event source and the Swift closure it calls; the source lives as long as this object.
public final class EventSource {
    /// Holds the closure the C callback reaches through `userdata`.
    final class Box {
        var io: ((UInt32) -> Void)?
        var fire: (() -> Void)?
        init(io: ((UInt32) -> Void)? = nil, fire: (() -> Void)? = nil) {
            self.io = io
            self.fire = fire
        }
    }

    let source: OpaquePointer
    private let box: Box

    init(source: OpaquePointer, box: Box) {
        self.source = source
        self.box = box
    }

    deinit { sd_event_source_disable_unref(source) }

    /// One-shot timers: fire once, `after` microseconds from the loop's now.
    public func schedule(after microseconds: UInt64) {
        var now: UInt64 = 0
        sd_event_now(sd_event_source_get_event(source), CLOCK_MONOTONIC, &now)
        sd_event_source_set_time(source, now + microseconds)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    /// Like `schedule(after:)`, but an already armed timer that fires sooner stays as it is:
    /// re-arming on every event would otherwise push it out forever.
    public func schedule(noLaterThan microseconds: UInt64) {
        var now: UInt64 = 0
        sd_event_now(sd_event_source_get_event(source), CLOCK_MONOTONIC, &now)
        var armed: UInt64 = 0
        if isScheduled, sd_event_source_get_time(source, &armed) >= 0, armed <= now + microseconds { return }
        schedule(after: microseconds)
    }

    public func cancel() {
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    }

    public var isScheduled: Bool {
        var enabled: Int32 = 0
        sd_event_source_get_enabled(source, &enabled)
        return enabled != Int32(SD_EVENT_OFF)
    }
}
