import CSystemd
import Glibc
import LectorLoop

/// An sd-bus connection. The daemon attaches it to the `EventLoop`; the CLI uses it blocking.
///
/// Not Sendable: one thread owns it (the loop's, in the daemon). `close()` (or the last
/// release) first removes every object and match, so no handler runs after it, then closes.
public final class Bus {
    /// `sd_bus *`.
    public let pointer: OpaquePointer
    /// Matches kept until the bus closes (`addMatch`).
    private var matches: [BusMatch] = []
    /// Served objects, withdrawn (before the matches) by `close()`.
    private var objects: [BusObject] = []
    /// Asynchronous calls waiting for their reply (`callAsync`); answered with an error by `close()`.
    var pendingCalls: [ObjectIdentifier: PendingCall] = [:]
    public private(set) var isClosed = false
    /// Runs when a method handler has returned, before the signals it emitted and its reply are
    /// sent. The daemon sends the sound server's waiting requests here: a Pause's cork then
    /// leaves ahead of the two PropertiesChanged and the reply, not after them.
    @MainActor public var beforeAnswering: (@MainActor () -> Void)?
    /// Signals emitted while a method handler runs (nil otherwise): sent after `beforeAnswering`.
    private var held: [HeldSignal]?
    private enum HeldSignal {
        case signal(OpaquePointer)   // a reference, released once sent
        case propertiesChanged(path: String, interface: String, names: [String])
    }

    /// The session bus (`DBUS_SESSION_BUS_ADDRESS`).
    public static func session() throws -> Bus {
        var bus: OpaquePointer?
        let r = sd_bus_open_user(&bus)
        guard r >= 0, let bus else {
            throw SystemError(errno: -r, "connecting to the session bus (is DBUS_SESSION_BUS_ADDRESS set?)")
        }
        return Bus(pointer: bus)
    }

    init(pointer: OpaquePointer) { self.pointer = pointer }

    deinit { close() }

    /// Disarms every object vtable and match (their userdata may be gone next), flushes what is
    /// queued and closes the connection. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        let served = objects
        objects = []
        if !served.isEmpty { onLoopThread(served) { for object in $0.reversed() { object.close() } } }
        let waiting = pendingCalls.values
        pendingCalls = [:]
        for call in waiting { call.finish(.failure(BusCallError(name: "org.freedesktop.DBus.Error.Disconnected",
                                                                message: "the connection was closed"))) }
        for match in matches.reversed() { match.cancel() }
        matches = []
        sd_bus_detach_event(pointer)
        sd_bus_flush_close_unref(pointer)
    }

    @MainActor
    public func attach(to loop: EventLoop) throws {
        let r = sd_bus_attach_event(pointer, loop.event, 0)
        guard r >= 0 else { throw SystemError(errno: -r, "sd_bus_attach_event") }
    }

    /// Calls `handler` once when the connection is lost (the bus restarted, logout, or the bus
    /// dropped us): sd-bus's local `Disconnected` signal. The loop goes on, so the owner can
    /// tear down in order and choose the exit status (instead of `sd_bus_set_exit_on_disconnect`).
    public func onDisconnected(_ handler: @escaping () -> Void) throws {
        try addMatch("type='signal',path='/org/freedesktop/DBus/Local',interface='org.freedesktop.DBus.Local',member='Disconnected'") { _ in
            handler()
        }
    }

    /// Serves `object` until the bus closes (or the object is closed).
    @MainActor
    public func add(_ object: BusObject) throws {
        try object.register(on: self)
        objects.append(object)
    }

    /// Takes a well-known name; fails if another process owns it.
    public func requestName(_ name: String) throws {
        let r = sd_bus_request_name(pointer, name, 0)
        guard r >= 0 else {
            if r == -EEXIST { throw SystemError(errno: EEXIST, "\(name) is already owned (is another lector running?)") }
            throw SystemError(errno: -r, "requesting \(name)")
        }
    }

    /// Emits a signal whose arguments `build` appends.
    public func emitSignal(path: String, interface: String, member: String,
                           _ build: (MessageWriter) throws -> Void) throws {
        guard !isClosed else { throw SystemError(errno: ENOTCONN, "sending signal \(member): the bus is closed") }
        var message: OpaquePointer?
        var r = sd_bus_message_new_signal(pointer, &message, path, interface, member)
        guard r >= 0, let message else { throw SystemError(errno: -r, "creating signal \(member)") }
        defer { sd_bus_message_unref(message) }
        try build(MessageWriter(message))
        if held != nil { return hold(message) }
        r = sd_bus_send(pointer, message, nil)
        guard r >= 0 else { throw SystemError(errno: -r, "sending signal \(member)") }
    }

    /// PropertiesChanged for `names` (values are fetched through the vtable's getters).
    public func emitPropertiesChanged(path: String, interface: String, names: [String]) {
        guard !names.isEmpty, !isClosed else { return }   // closed: the connection is freed
        guard held != nil else { return sendPropertiesChanged(path: path, interface: interface, names: names) }
        held?.append(.propertiesChanged(path: path, interface: interface, names: names))
    }

    private func sendPropertiesChanged(path: String, interface: String, names: [String]) {
        var pointers: [UnsafeMutablePointer<CChar>?] = names.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        _ = sd_bus_emit_properties_changed_strv(pointer, path, interface, &pointers)
    }

    private func hold(_ message: OpaquePointer) {
        held?.append(.signal(sd_bus_message_ref(message)))
    }

    /// Runs a method handler with its signals held, then `beforeAnswering`, then sends the
    /// signals in the order they were emitted; the caller replies after. A signal's arguments
    /// are those of the moment it was emitted; a PropertiesChanged's values are fetched as it
    /// is sent, as sd-bus always does. A signal that cannot be sent then is dropped, as a
    /// PropertiesChanged always was: the reply meets the same fault.
    @MainActor
    func answering<Answer>(_ handler: () -> Answer) -> Answer {
        guard let beforeAnswering, held == nil else { return handler() }
        held = []
        let result = handler()
        beforeAnswering()
        let signals = held ?? []
        held = nil
        send(signals)
        return result
    }

    /// Sends what the running handler has emitted so far, before a reply it sends itself
    /// (`MethodCall.reply`, a `DeferredReply` answered at once): such a reply follows those
    /// signals, as it always did.
    @MainActor
    func sendHeld() {
        guard let signals = held, !signals.isEmpty else { return }
        held = []
        send(signals)
    }

    private func send(_ signals: [HeldSignal]) {
        for signal in signals {
            switch signal {
            case .signal(let message):
                if !isClosed { _ = sd_bus_send(pointer, message, nil) }
                sd_bus_message_unref(message)
            case .propertiesChanged(let path, let interface, let names):
                if !isClosed { sendPropertiesChanged(path: path, interface: interface, names: names) }
            }
        }
    }

    /// Calls a method and waits for its reply (CLI only: it blocks). D-Bus errors are thrown as `BusCallError`.
    /// With `autoStart` false the bus does not start the destination by D-Bus activation: a
    /// destination that is not running is the error `org.freedesktop.DBus.Error.ServiceUnknown`
    /// (how `lector status` asks without starting a daemon just to hear that nothing plays).
    public func call(destination: String, path: String, interface: String, member: String,
                     timeoutMicroseconds: UInt64 = 30_000_000, autoStart: Bool = true,
                     _ build: (MessageWriter) throws -> Void = { _ in }) throws -> MessageReader {
        let message = try newMethodCall(destination: destination, path: path, interface: interface, member: member,
                                        autoStart: autoStart, build)
        defer { sd_bus_message_unref(message) }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(pointer, message, timeoutMicroseconds, &error, &reply)
        guard r >= 0, let reply else {
            throw BusCallError(name: error.name.map { String(cString: $0) } ?? "errno.\(-r)",
                               message: error.message.map { String(cString: $0) } ?? String(cString: strerror(-r)))
        }
        return MessageReader(reply, owned: true)
    }

    /// A new method call message (the caller unrefs it), arguments appended by `build`.
    func newMethodCall(destination: String, path: String, interface: String, member: String, autoStart: Bool,
                       _ build: (MessageWriter) throws -> Void) throws -> OpaquePointer {
        var message: OpaquePointer?
        let r = sd_bus_message_new_method_call(pointer, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw SystemError(errno: -r, "creating call \(member)") }
        do {
            if !autoStart { sd_bus_message_set_auto_start(message, 0) }
            try build(MessageWriter(message))
        } catch {
            sd_bus_message_unref(message)
            throw error
        }
        return message
    }

    /// Calls `handler` for every message matching `rule` (e.g. a signal), until the bus is closed.
    public func addMatch(_ rule: String, handler: @escaping (MessageReader) -> Void) throws {
        matches.append(try addRemovableMatch(rule, handler: handler))
    }

    /// Like `addMatch`, but the match can be dropped again (`BusMatch.cancel()`): a client that
    /// wants signals only while someone is interested, so it does not wake for them otherwise.
    public func addRemovableMatch(_ rule: String, handler: @escaping (MessageReader) -> Void) throws -> BusMatch {
        let box = MatchBox(handler: handler)
        var slot: OpaquePointer?
        let r = sd_bus_add_match(pointer, &slot, rule, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            Unmanaged<MatchBox>.fromOpaque(userdata).takeUnretainedValue().handler(MessageReader(message))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
        guard r >= 0, let slot else { throw SystemError(errno: -r, "adding match \(rule)") }
        return BusMatch(slot: slot, box: box)
    }

    /// Blocking use: process one message, or wait up to `timeout` for one.
    public func processOrWait(timeoutMicroseconds: UInt64) throws {
        let r = sd_bus_process(pointer, nil)
        guard r >= 0 else { throw SystemError(errno: -r, "sd_bus_process") }
        if r > 0 { return }
        let w = sd_bus_wait(pointer, timeoutMicroseconds)
        guard w >= 0 else { throw SystemError(errno: -w, "sd_bus_wait") }
    }

    final class MatchBox {
        let handler: (MessageReader) -> Void
        init(handler: @escaping (MessageReader) -> Void) { self.handler = handler }
    }
}

/// A match added by `addRemovableMatch`: its handler runs until `cancel()` (or release).
public final class BusMatch {
    private var slot: OpaquePointer?
    private let box: AnyObject

    init(slot: OpaquePointer, box: AnyObject) {
        self.slot = slot
        self.box = box
    }

    deinit { cancel() }

    /// Removes the match from the bus (unreferencing the slot disarms it first).
    public func cancel() {
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
    }
}

/// An error reply to a method call: `name` is the D-Bus error name.
public struct BusCallError: Error, CustomStringConvertible {
    public let name: String
    public let message: String
    public var description: String { "\(message) (\(name))" }
}
