import CSystemd
import LectorLoop

/// Appends arguments to an `sd_bus_message` (non-variadic `append_basic`, as Swift needs).
public struct MessageWriter {
    public let message: OpaquePointer

    public init(_ message: OpaquePointer) { self.message = message }

    public func append(_ value: String) throws {
        try value.withCString { try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0)) }
    }

    public func append(_ value: UInt64) throws { try basic("t", value) }
    public func append(_ value: UInt32) throws { try basic("u", value) }
    public func append(_ value: Int64) throws { try basic("x", value) }
    public func append(_ value: Double) throws { try basic("d", value) }
    /// D-Bus `b` is a C int: never pass a Swift Bool through.
    public func append(_ value: Bool) throws { try basic("b", Int32(value ? 1 : 0)) }

    /// `type` is one of a, r, e, v; `contents` its signature, e.g. `container("a", "(sss)")`.
    public func container(_ type: Character, _ contents: String, _ body: () throws -> Void) throws {
        try check(sd_bus_message_open_container(message, CChar(type.asciiValue!), contents))
        try body()
        try check(sd_bus_message_close_container(message))
    }

    /// One `{sv}` entry of an `a{sv}` being written: `entry("xesam:title", "s") { try $0.append(title) }`.
    public func entry(_ key: String, _ signature: String, _ body: (MessageWriter) throws -> Void) throws {
        try container("e", "sv") {
            try append(key)
            try container("v", signature) { try body(self) }
        }
    }

    public func appendObjectPath(_ path: String) throws {
        try path.withCString { try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0)) }
    }

    public func appendStrings(_ values: [String]) throws {
        try container("a", "s") { for value in values { try append(value) } }
    }

    public func append(_ value: Int32) throws { try basic("i", value) }

    private func basic<T: BitwiseCopyable>(_ type: Character, _ value: T) throws {
        var value = value
        try check(sd_bus_message_append_basic(message, CChar(type.asciiValue!), &value))
    }

    private func check(_ r: Int32) throws {
        guard r >= 0 else { throw SystemError(errno: -r, "sd_bus_message_append") }
    }
}
