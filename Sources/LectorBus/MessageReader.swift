import CSystemd
import Glibc
import LectorCore

/// Reads arguments off an `sd_bus_message`, in order. Swift cannot call the variadic
/// `sd_bus_message_read`, so each type has its own method over `read_basic`.
public struct MessageReader {
    public let message: OpaquePointer
    private let owner: Owner?

    public init(_ message: OpaquePointer, owned: Bool = false) {
        self.message = message
        owner = owned ? Owner(message) : nil
    }

    public func readString() throws -> String {
        var value: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value), "s")
        return String(cString: value!)
    }

    public func readUInt64() throws -> UInt64 { try basic("t", UInt64(0)) }
    public func readUInt32() throws -> UInt32 { try basic("u", UInt32(0)) }

    /// `a{sv}` of options, keeping each value's type so validation can say what was wrong.
    public func readOptions() throws -> [String: OptionValue] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}"), "a{sv}")
        var options: [String: OptionValue] = [:]
        while try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv"), "{sv}") > 0 {
            let key = try readString()
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            try check(sd_bus_message_peek_type(message, &type, &contents), "v")
            let signature = contents.map { String(cString: $0) } ?? "?"
            try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), contents), "v")
            let value: OptionValue
            switch signature {
            case "s": value = .string(try readString())
            case "d": value = .double(try basic("d", Double(0)))
            case "b": value = .boolean(try basic("b", Int32(0)) != 0)
            case "y": value = .integer(Int64(try basic("y", UInt8(0))))
            case "n": value = .integer(Int64(try basic("n", Int16(0))))
            case "q": value = .integer(Int64(try basic("q", UInt16(0))))
            case "i": value = .integer(Int64(try basic("i", Int32(0))))
            case "u": value = .integer(Int64(try basic("u", UInt32(0))))
            case "x": value = .integer(try basic("x", Int64(0)))
            case "t":
                let raw = try basic("t", UInt64(0))
                value = raw <= UInt64(Int64.max) ? .integer(Int64(raw)) : .other(signature: "t")
            default:
                try check(sd_bus_message_skip(message, contents), signature)
                value = .other(signature: signature)
            }
            try check(sd_bus_message_exit_container(message), "v")
            try check(sd_bus_message_exit_container(message), "{sv}")
            if options.updateValue(value, forKey: key) != nil {
                throw LectorError.invalidArgument("option \"\(key)\" is given twice")
            }
        }
        try check(sd_bus_message_exit_container(message), "a{sv}")
        return options
    }

    private func basic<T: BitwiseCopyable>(_ type: Character, _ initial: T) throws -> T {
        var value = initial
        try check(sd_bus_message_read_basic(message, CChar(type.asciiValue!), &value), String(type))
        return value
    }

    @discardableResult
    private func check(_ r: Int32, _ what: String) throws -> Int32 {
        guard r >= 0 else {
            throw LectorError.invalidArgument("could not read argument of type \(what): \(String(cString: strerror(-r)))")
        }
        return r
    }

    /// Keeps a reply alive as long as a reader of it exists.
    private final class Owner {
        let message: OpaquePointer
        init(_ message: OpaquePointer) { self.message = message }
        deinit { sd_bus_message_unref(message) }
    }
}

extension MessageReader {
    /// D-Bus `b` arrives as a C int.
    public func readBool() throws -> Bool {
        var value: Int32 = 0
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value)
        guard r >= 0 else { throw LectorError.invalidArgument("could not read a boolean") }
        return value != 0
    }
}
