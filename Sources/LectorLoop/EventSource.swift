import CSystemd

/// An sd-event source and the Swift closure it calls. It is disarmed and freed by `close()` or
/// when its owner lets it go, whichever comes first; the closure never runs after that.
@MainActor
public final class EventSource {
    /// Holds the closure the C callback reaches through `userdata`.
    final class Box {
        var io: (@MainActor (UInt32) -> Void)?
        var fire: (@MainActor () -> Void)?
        init(io: (@MainActor (UInt32) -> Void)? = nil, fire: (@MainActor () -> Void)? = nil) {
            self.io = io
            self.fire = fire
        }
    }

    private var source: OpaquePointer?
    private let box: Box

    init(source: OpaquePointer, box: Box) {
        self.source = source
        self.box = box
    }

    isolated deinit { close() }

    /// Disarms the source and frees it (idempotent); its closure and what it captured go with it.
    public func close() {
        guard let source else { return }
        self.source = nil
        sd_event_source_disable_unref(source)
        box.io = nil
        box.fire = nil
    }

    /// One-shot timers: fire once, `after` microseconds from the loop's now.
    public func schedule(after microseconds: UInt64) {
        guard let source else { return }
        var now: UInt64 = 0
        sd_event_now(sd_event_source_get_event(source), CLOCK_MONOTONIC, &now)
        sd_event_source_set_time(source, now + microseconds)
        sd_event_source_set_enabled(source, SourceState.oneShot)
    }

    /// Like `schedule(after:)`, but an already armed timer that fires sooner stays as it is:
    /// re-arming on every event would otherwise push it out forever.
    public func schedule(noLaterThan microseconds: UInt64) {
        guard let source else { return }
        var now: UInt64 = 0
        sd_event_now(sd_event_source_get_event(source), CLOCK_MONOTONIC, &now)
        var armed: UInt64 = 0
        if isScheduled, sd_event_source_get_time(source, &armed) >= 0, armed <= now + microseconds { return }
        schedule(after: microseconds)
    }

    public func cancel() {
        guard let source else { return }
        sd_event_source_set_enabled(source, SourceState.off)
    }

    public var isScheduled: Bool {
        guard let source else { return false }
        var enabled: Int32 = 0
        sd_event_source_get_enabled(source, &enabled)
        return enabled != SourceState.off
    }
}

/// sd-event's `SD_EVENT_OFF` / `SD_EVENT_ONESHOT` (an anonymous C enum).
enum SourceState {
    static let off: Int32 = 0
    static let oneShot: Int32 = -1
}
