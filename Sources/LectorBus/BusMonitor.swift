import CSystemd
import Glibc
import LectorLoop

/// A second session-bus connection turned into a monitor (`BecomeMonitor`): it sees copies of
/// the messages matching its rules, e.g. other apps' `org.freedesktop.Notifications.Notify`
/// calls, and may never send anything again. Owned by the loop thread.
///
/// ```swift
/// let monitor = try BusMonitor(loop: loop, rules: ["type='method_call',interface='org.freedesktop.Notifications',member='Notify'"]) { message in
///     print(try message.readString())   // the app name
/// }
/// ```
@MainActor
public final class BusMonitor {
    private let bus: Bus
    private var filter: OpaquePointer?
    private var pending: OpaquePointer?
    private let handler: @MainActor (MessageReader) -> Void
    /// Called once BecomeMonitor answered: nil on success, else why it failed.
    public var onReady: (@MainActor (String?) -> Void)?

    public init(loop: EventLoop, rules: [String], handler: @escaping @MainActor (MessageReader) -> Void) throws {
        bus = try Bus.session()
        self.handler = handler
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Every message is consumed here: sd-bus must never answer a call it only overheard
        // (a monitor that sends is disconnected by the bus).
        var r = sd_bus_add_filter(bus.pointer, &filter, { message, userdata, _ in
            guard let message, let userdata else { return 1 }
            guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 1 }
            onLoopThread((message, userdata)) { message, userdata in
                Unmanaged<BusMonitor>.fromOpaque(userdata).takeUnretainedValue().handler(MessageReader(message))
            }
            return 1
        }, me)
        guard r >= 0 else { throw SystemError(errno: -r, "sd_bus_add_filter") }
        try bus.attach(to: loop)

        var call: OpaquePointer?
        r = sd_bus_message_new_method_call(bus.pointer, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                           "org.freedesktop.DBus.Monitoring", "BecomeMonitor")
        guard r >= 0, let call else { throw SystemError(errno: -r, "creating BecomeMonitor") }
        defer { sd_bus_message_unref(call) }
        let writer = MessageWriter(call)
        try writer.appendStrings(rules)
        try writer.append(UInt32(0))
        r = sd_bus_call_async(bus.pointer, &pending, call, { reply, userdata, _ in
            guard let reply, let userdata else { return 1 }
            let error = sd_bus_message_get_error(reply).map { String(cString: $0.pointee.message ?? $0.pointee.name) }
            onLoopThread(userdata) { userdata in
                Unmanaged<BusMonitor>.fromOpaque(userdata).takeUnretainedValue().onReady?(error)
            }
            return 1
        }, me, 5_000_000)
        guard r >= 0 else { throw SystemError(errno: -r, "calling BecomeMonitor") }
    }

    isolated deinit { close() }

    /// Disarms the filter and the pending call, then closes the monitor's connection. Idempotent.
    public func close() {
        if let pending { sd_bus_slot_unref(pending) }
        if let filter { sd_bus_slot_unref(filter) }
        pending = nil
        filter = nil
        bus.close()
    }
}
