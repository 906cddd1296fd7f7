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
        do { try build(MessageWriter(reply)) } catch let error as SystemError { return -error.errno } catch { return -EINVAL }
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
}
