import CSystemd
import LectorLoop

/// Appends arguments to an `sd_bus_message` (non-variadic `append_basic`, as Swift needs).
///
/// Every writer counts what it appends against a `MessageBudget`, so a reply or signal is never
/// built larger than the bus allows (the bus drops a client that sends one): past the budget,
/// appending throws `MessageTooLarge` and the caller answers with a named error instead.
public struct MessageWriter {
    public let message: OpaquePointer
    public let budget: MessageBudget

    public init(_ message: OpaquePointer, budget: MessageBudget = MessageBudget()) {
        self.message = message
        self.budget = budget
    }

    /// Unicode noncharacters (U+FDD0...U+FDEF, U+xFFFE, U+xFFFF), which XML and UTF-8 allow but
    /// sd-bus refuses, are sent as U+FFFD: one scalar for one, so text offsets still match.
    public func append(_ value: String) throws {
        try budget.spend(value.utf8.count + 8)
        let sendable = Self.withoutNoncharacters(value)
        try sendable.withCString { try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0)) }
    }

    static func withoutNoncharacters(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isNoncharacter) else { return text }
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { cleaned.append(isNoncharacter(scalar) ? "\u{FFFD}" : scalar) }
        return String(cleaned)
    }

    private static func isNoncharacter(_ scalar: Unicode.Scalar) -> Bool {
        (0xFDD0...0xFDEF).contains(scalar.value) || scalar.value & 0xFFFE == 0xFFFE
    }

    public func append(_ value: UInt64) throws { try basic("t", value) }
    public func append(_ value: UInt32) throws { try basic("u", value) }
    public func append(_ value: Int64) throws { try basic("x", value) }
    public func append(_ value: Double) throws { try basic("d", value) }
    /// D-Bus `b` is a C int: never pass a Swift Bool through.
    public func append(_ value: Bool) throws { try basic("b", Int32(value ? 1 : 0)) }

    /// `type` is one of a, r, e, v; `contents` its signature, e.g. `container("a", "(sss)")`.
    public func container(_ type: Character, _ contents: String, _ body: () throws -> Void) throws {
        try budget.spend(contents.utf8.count + 8)
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
        try budget.spend(path.utf8.count + 8)
        try path.withCString { try check(sd_bus_message_append_basic(message, CChar(UInt8(ascii: "o")), $0)) }
    }

    public func appendStrings(_ values: [String]) throws {
        try container("a", "s") { for value in values { try append(value) } }
    }

    public func append(_ value: Int32) throws { try basic("i", value) }

    /// `ay` in one piece (an image of a book).
    public func appendBytes(_ bytes: [UInt8]) throws {
        try budget.spend(bytes.count + 8)
        try bytes.withUnsafeBytes { try check(sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count)) }
    }

    private func basic<T: BitwiseCopyable>(_ type: Character, _ value: T) throws {
        try budget.spend(8)
        var value = value
        try check(sd_bus_message_append_basic(message, CChar(type.asciiValue!), &value))
    }

    private func check(_ r: Int32) throws {
        guard r >= 0 else { throw SystemError(errno: -r, "sd_bus_message_append") }
    }
}

/// How many bytes a message may take: 30 MiB, below the 32 MiB that dbus-daemon accepts by default
/// (it disconnects a client that sends more) and below the spec's 64 MiB array limit.
public final class MessageBudget {
    public static let defaultBytes = 30 << 20
    public let limit: Int
    public private(set) var spent = 0

    public init(limit: Int = MessageBudget.defaultBytes) { self.limit = limit }

    func spend(_ bytes: Int) throws {
        spent += bytes
        if spent > limit { throw MessageTooLarge(limit: limit) }
    }
}

/// A message would have grown past its budget; nothing was sent.
public struct MessageTooLarge: Error, CustomStringConvertible {
    public let limit: Int
    public var description: String {
        "the message would be larger than \(limit >> 20) MiB"
            + (limit >= MessageBudget.defaultBytes ? ", more than the bus carries" : ", more than Lector answers at once")
    }
}
