import CSystemd
import Glibc
import LectorLoop

extension Bus {
    /// Calls a method without blocking the loop: the reply (or error, as `BusCallError`) arrives
    /// when the loop dispatches it. For clients that serve something else meanwhile, such as the
    /// read-along server. `autoStart: false` never starts an activatable service that is not
    /// running (a page must show "not running", not start the daemon).
    ///
    /// ```swift
    /// let reply = try await bus.callAsync(destination: MPRISNames.service, path: MPRISNames.path,
    ///                                     interface: MPRISNames.player, member: "PlayPause")
    /// ```
    @MainActor
    public func callAsync(destination: String, path: String, interface: String, member: String,
                          timeoutMicroseconds: UInt64 = 30_000_000, autoStart: Bool = true,
                          _ build: (MessageWriter) throws -> Void = { _ in }) async throws -> MessageReader {
        guard !isClosed else {
            throw BusCallError(name: "org.freedesktop.DBus.Error.Disconnected", message: "the connection is closed")
        }
        let message = try newMethodCall(destination: destination, path: path, interface: interface, member: member,
                                        autoStart: autoStart, build)
        defer { sd_bus_message_unref(message) }
        let call = PendingCall(bus: self)
        let key = ObjectIdentifier(call)
        let handover: Handover = await withCheckedContinuation { continuation in
            call.continuation = continuation
            var slot: OpaquePointer?
            let r = sd_bus_call_async(pointer, &slot, message, { reply, userdata, _ in
                guard let reply, let userdata else { return 0 }
                let call = Unmanaged<PendingCall>.fromOpaque(userdata).takeUnretainedValue()
                call.answered(reply)
                return 0
            }, Unmanaged.passUnretained(call).toOpaque(), timeoutMicroseconds)
            if r < 0 {
                call.finish(.failure(SystemError(errno: -r, "calling \(member)")))
            } else {
                call.slot = slot
                pendingCalls[key] = call
            }
        }
        return try handover.result.get()
    }
}

/// One `callAsync` in flight: owns its sd-bus slot, so closing the bus cancels the callback.
final class PendingCall {
    weak var bus: Bus?
    var slot: OpaquePointer?
    var continuation: CheckedContinuation<Handover, Never>?

    init(bus: Bus) { self.bus = bus }

    func answered(_ reply: OpaquePointer) {
        if let error = sd_bus_message_get_error(reply), sd_bus_error_is_set(error) != 0 {
            finish(.failure(BusCallError(name: error.pointee.name.map { String(cString: $0) } ?? "unknown",
                                         message: error.pointee.message.map { String(cString: $0) } ?? "")))
        } else {
            sd_bus_message_ref(reply)
            finish(.success(MessageReader(reply, owned: true)))
        }
    }

    /// Resumes the caller once; drops the slot (after the callback, sd-bus no longer needs it).
    func finish(_ result: Result<MessageReader, any Error>) {
        bus?.pendingCalls[ObjectIdentifier(self)] = nil
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: Handover(result: result))
    }
}

/// A reply handed from the sd-bus callback to the caller; both run on the loop thread, and the
/// message is referenced by nothing else.
struct Handover: @unchecked Sendable {
    let result: Result<MessageReader, any Error>
}
