import CSystemd
import Glibc
import LectorCore
import LectorLoop

/// Finishing a method call from a vtable handler: a return value, or a named error.
public enum MethodReply {
    /// Replies with the values `build` appends; returns what the handler should return.
    public static func send(to call: OpaquePointer, _ build: (MessageWriter) throws -> Void = { _ in }) -> Int32 {
        var reply: OpaquePointer?
        var r = sd_bus_message_new_method_return(call, &reply)
        guard r >= 0, let reply else { return r }
        defer { sd_bus_message_unref(reply) }
        do {
            try build(MessageWriter(reply))
        } catch let error as MessageTooLarge {
            return sendError(to: call, named(error)) < 0 ? -EINVAL : 1
        } catch let error as LectorError {
            return sendError(to: call, error) < 0 ? -EINVAL : 1
        } catch let error as SystemError {
            return -error.errno
        } catch {
            return -EINVAL
        }
        r = sd_bus_send(nil, reply, nil)
        return r < 0 ? r : 1
    }

    /// Replies to a call held for later (`sd_bus_message_ref`) with a named error.
    public static func sendError(to call: OpaquePointer, _ error: LectorError) -> Int32 {
        var busError = sd_bus_error()
        defer { sd_bus_error_free(&busError) }
        sd_bus_error_set(&busError, error.busName, error.message)
        var reply: OpaquePointer?
        var r = sd_bus_message_new_method_error(call, &reply, &busError)
        guard r >= 0, let reply else { return r }
        defer { sd_bus_message_unref(reply) }
        r = sd_bus_send(nil, reply, nil)
        return r
    }

    /// Fills `error` so sd-bus replies with e.g. `io.github.lector.Error.UnknownVoice`.
    public static func fail(_ error: LectorError, into busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        sd_bus_error_set(busError, error.busName, error.message)
    }

    /// Any error a handler threw, under its specific name (see `named(_:)`).
    public static func fail(_ error: any Error, into busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        fail(named(error), into: busError)
    }

    /// The named error a client gets for `error`: a `LectorError` as it is, a message too large
    /// for the bus as `ReplyTooLarge`; only what no client can cause is left `Failed`.
    public static func named(_ error: any Error) -> LectorError {
        switch error {
        case let error as LectorError: return error
        case let error as MessageTooLarge:
            return LectorError(.replyTooLarge, "\(error); ask for less (fewer tracks, one chapter)")
        default: return LectorError(.failed, "\(error)")
        }
    }
}

/// A method call answered later, after work off the loop (`Open` parses a book on a queue): it
/// holds the call message until `send` or `fail` answers it, once. It may travel through other
/// threads untouched; it is answered and freed on the loop.
public final class DeferredReply: @unchecked Sendable {
    private var call: OpaquePointer?
    /// Answered while its handler still runs, the handler's signals so far go first.
    private weak var bus: Bus?

    init(_ call: OpaquePointer, bus: Bus?) {
        self.call = sd_bus_message_ref(call)
        self.bus = bus
    }

    deinit { if let call { sd_bus_message_unref(call) } }

    @MainActor
    public func send(_ build: (MessageWriter) throws -> Void = { _ in }) {
        guard let call else { return }
        self.call = nil
        bus?.sendHeld()
        _ = MethodReply.send(to: call, build)
        sd_bus_message_unref(call)
    }

    @MainActor
    public func fail(_ error: LectorError) {
        guard let call else { return }
        self.call = nil
        bus?.sendHeld()
        _ = MethodReply.sendError(to: call, error)
        sd_bus_message_unref(call)
    }
}
