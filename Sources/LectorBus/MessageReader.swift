import CSystemd
import Glibc
import LectorCore

/// Reads arguments off an `sd_bus_message`, in order. Swift cannot call the variadic
/// `sd_bus_message_read`, so each type has its own method over `read_basic`.
public struct MessageReader {
    public let message: OpaquePointer
    private let owner: Owner?
    /// Longest string read without `atMost`: `longestArgument` for what clients send the
    /// daemon (method arguments, property values), no limit for replies and signals it reads.
    public let longestString: Int

    public init(_ message: OpaquePointer, owned: Bool = false, longestString: Int = .max) {
        self.message = message
        owner = owned ? Owner(message) : nil
        self.longestString = longestString
    }

    /// Longest string argument any method or property of the daemon takes: Speak's text, 64 KiB.
    /// A longer one is refused before it is copied out of the message, so a 10-MB argument costs
    /// the message alone (the copy, and what a handler made of it, cost up to eight times its size).
    public static let longestArgument = 65_536

    /// A string of at most `limit` bytes (`longestString` if not given); a longer one throws
    /// `tooLong(its length)`.
    ///
    /// ```swift
    /// let text = try reader.readString(atMost: SpeechRequest.maximumTextBytes, tooLong: SpeechRequest.tooLong)
    /// ```
    public func readString(atMost limit: Int? = nil,
                           tooLong: (Int) -> any Error = MessageReader.stringTooLong) throws -> String {
        var value: UnsafePointer<CChar>?
        let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value)
        if r == -EBADMSG {
            throw LectorError.invalidArgument("a string holds a Unicode noncharacter (U+FDD0...U+FDEF, U+FFFE, U+FFFF) "
                                              + "or a NUL, which D-Bus refuses: remove it")
        }
        try check(r, "s")
        return try bounded(value!, limit ?? longestString, tooLong)
    }

    public static func stringTooLong(_ bytes: Int) -> any Error {
        LectorError.invalidArgument("a string argument is \(bytes) bytes; no argument of Lector's methods is longer "
                                    + "than \(longestArgument) bytes")
    }

    /// The C string as a String, once its length is known to be within `limit`.
    private func bounded(_ value: UnsafePointer<CChar>, _ limit: Int, _ tooLong: (Int) -> any Error) throws -> String {
        let length = strlen(value)
        guard length <= limit else { throw tooLong(length) }
        return String(cString: value)
    }

    public func readUInt64() throws -> UInt64 { try basic("t", UInt64(0)) }
    public func readInt64() throws -> Int64 { try basic("x", Int64(0)) }
    public func readDouble() throws -> Double { try basic("d", Double(0)) }

    public func readObjectPath() throws -> String {
        var value: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(message, CChar(UInt8(ascii: "o")), &value), "o")
        return try bounded(value!, longestString, Self.stringTooLong)
    }

    /// `as`
    public func readStrings() throws -> [String] { try readArray(of: "s") }

    /// `ao`, each path handed to `body` as it is read: a list of any length is never held whole.
    public func forEachObjectPath(_ body: (String) throws -> Void) throws {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "o"), "ao")
        while true {
            var value: UnsafePointer<CChar>?
            let r = sd_bus_message_read_basic(message, CChar(UInt8(ascii: "o")), &value)
            try check(r, "o")
            if r == 0 { break }
            try body(try bounded(value!, longestString, Self.stringTooLong))
        }
        try check(sd_bus_message_exit_container(message), "ao")
    }

    private func readArray(of type: Character) throws -> [String] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), String(type)), "a\(type)")
        var items: [String] = []
        while true {
            var value: UnsafePointer<CChar>?
            let r = sd_bus_message_read_basic(message, CChar(type.asciiValue!), &value)
            try check(r, String(type))
            if r == 0 { break }
            items.append(try bounded(value!, longestString, Self.stringTooLong))
        }
        try check(sd_bus_message_exit_container(message), "a\(type)")
        return items
    }

    /// `a(...)`: reads each struct of the array with `element`.
    ///
    /// ```swift
    /// let queue = try reply.readStructArray("tsss") { (try reply.readUInt64(), try reply.readString()) }
    /// ```
    public func readStructArray<T>(_ contents: String, _ element: () throws -> T) throws -> [T] {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "(\(contents))"), "a(\(contents))")
        var result: [T] = []
        while try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "r")), contents), "(\(contents))") > 0 {
            result.append(try element())
            try check(sd_bus_message_exit_container(message), "(\(contents))")
        }
        try check(sd_bus_message_exit_container(message), "a(\(contents))")
        return result
    }

    /// A `v` that must hold `contents` (a property's value from Properties.Get), read by `body`.
    ///
    /// ```swift
    /// let voices = try reply.readVariant("a(ssss)") { try reply.readStructArray("ssss") { try reply.readString() } }
    /// ```
    public func readVariant<T>(_ contents: String, _ body: () throws -> T) throws -> T {
        try check(sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), contents), "v (\(contents))")
        let value = try body()
        try check(sd_bus_message_exit_container(message), "v (\(contents))")
        return value
    }

    public var member: String { sd_bus_message_get_member(message).map { String(cString: $0) } ?? "" }
    /// The unique name of the connection that sent it (":1.42").
    public var sender: String { sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "" }
    public var interface: String { sd_bus_message_get_interface(message).map { String(cString: $0) } ?? "" }
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

extension MessageReader {
    /// An `a{sv}` (or a `v` holding one) for display: strings, object paths and numbers as text,
    /// string arrays joined with ", ". For CLIs, not for validating input.
    public func readDisplayDictionary() throws -> [String: String] {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        if sd_bus_message_peek_type(message, &type, &contents) > 0, type == CChar(UInt8(ascii: "v")) {
            guard sd_bus_message_enter_container(message, type, contents) >= 0 else { return [:] }
            defer { sd_bus_message_exit_container(message) }
            return try readDisplayDictionary()
        }
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}") >= 0 else {
            throw LectorError.invalidArgument("expected a{sv}")
        }
        var result: [String: String] = [:]
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            let key = try readString()
            result[key] = try readDisplayVariant()
            sd_bus_message_exit_container(message)
        }
        sd_bus_message_exit_container(message)
        return result
    }

    /// An `aa{sv}` for display: each dictionary as `readDisplayDictionary` reads it.
    public func readDisplayDictionaries() throws -> [[String: String]] {
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "a{sv}") >= 0 else {
            throw LectorError.invalidArgument("expected aa{sv}")
        }
        var result: [[String: String]] = []
        while sd_bus_message_at_end(message, 0) == 0 {
            result.append(try readDisplayDictionary())
        }
        sd_bus_message_exit_container(message)
        return result
    }

    /// One variant as text (see `readDisplayDictionary`).
    public func readDisplayVariant() throws -> String {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        sd_bus_message_peek_type(message, &type, &contents)
        let signature = contents.map { String(cString: $0) } ?? ""
        sd_bus_message_enter_container(message, CChar(UInt8(ascii: "v")), contents)
        defer { sd_bus_message_exit_container(message) }
        switch signature {
        case "s": return try readString()
        case "o": return try readObjectPath()
        case "x": return String(try readInt64())
        case "t": return String(try readUInt64())
        case "u": return String(try readUInt32())
        case "i":
            var value: Int32 = 0
            sd_bus_message_read_basic(message, CChar(UInt8(ascii: "i")), &value)
            return String(value)
        case "d": return String(try readDouble())
        case "b": return try readBool() ? "true" : "false"
        case "as":
            var items: [String] = []
            sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s")
            while true {
                var value: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value) > 0 else { break }
                items.append(String(cString: value!))
            }
            sd_bus_message_exit_container(message)
            return items.joined(separator: ", ")
        default:
            sd_bus_message_skip(message, contents)
            return "(\(signature))"
        }
    }
}

extension MessageReader {
    /// `ay`, in one copy (a book's image for the read-along page).
    public func readBytes() throws -> [UInt8] {
        var pointer: UnsafeRawPointer?
        var size = 0
        let r = sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size)
        guard r >= 0 else { throw LectorError.invalidArgument("could not read a byte array: \(String(cString: strerror(-r)))") }
        guard let pointer, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: size))
    }
}
