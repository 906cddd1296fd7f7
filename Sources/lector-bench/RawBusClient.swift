import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The smallest D-Bus client that can call `Speak` from inside the benchmark process: one unix
/// socket, SASL EXTERNAL, `Hello`, then method calls marshalled by hand (little-endian, protocol 1).
/// It exists so the "in-process" latency row measures the daemon alone: the connection is set up
/// before the clock starts, so no client process start, library load or bus handshake is counted.
/// Deliberately tiny: only the types Speak's signature `sa{sv}` (with an empty dictionary) and the
/// header fields a reply carries need.
final class RawBusClient {
    struct CallError: Error, CustomStringConvertible {
        let description: String
        /// Nothing (or not all of a message) arrived before the deadline; the connection is still usable.
        var timedOut = false
    }

    /// A method return or error, as far as the benchmark cares.
    struct Reply {
        let isError: Bool
        let errorName: String?
        let body: [UInt8]
        let signature: String
    }

    /// Any message as read from the bus (signals too), dated when its last bytes were read.
    struct Message {
        let type: UInt8
        let replySerial: UInt32?
        let errorName: String?
        let path: String?
        let interface: String?
        let member: String?
        let signature: String
        let body: [UInt8]
        let receivedAt: Date

        var isSignal: Bool { type == 4 }
    }

    private let descriptor: Int32
    private var serial: UInt32 = 0
    private var inbox: [UInt8] = []
    /// When the last bytes were read from the socket.
    private var lastReadAt = Date.distantPast

    /// `address` like "unix:path=/tmp/x/bus" (the only transport the test session uses).
    init(address: String) throws {
        guard let path = address.split(separator: ",").lazy.compactMap({ part -> String? in
            let text = part.hasPrefix("unix:") ? part.dropFirst(5) : part
            return text.hasPrefix("path=") ? String(text.dropFirst(5)) : nil
        }).first else { throw CallError(description: "unsupported bus address \(address)") }

        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw CallError(description: "socket: \(String(cString: strerror(errno)))") }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else {
            close(descriptor)
            throw CallError(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw CallError(description: "connect \(path): \(message)")
        }
        do {
            try authenticate()
            _ = try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                         interface: "org.freedesktop.DBus", member: "Hello")
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    // MARK: - Calls

    /// Sends a `Speak(text, {})` call and returns at once (the clock is read just before this).
    /// Collect the reply with `waitForReply(serial:)`.
    func sendSpeak(_ text: String) throws -> UInt32 {
        try sendMessage(destination: "io.github.lector.Lector1", path: "/io/github/lector/Lector1",
                        interface: "io.github.lector.Lector1", member: "Speak", signature: "sa{sv}",
                        body: Self.stringAndNoOptions(text))
    }

    /// The body of a `(s, a{sv})` call with an empty dictionary, e.g. Speak or Narrator1.Open.
    static func stringAndNoOptions(_ text: String) -> [UInt8] {
        var body = Marshaller()
        body.appendString(text)
        body.appendEmptyArray(elementAlignment: 8)  // a{sv}: dict entries align to 8
        return body.bytes
    }

    /// The body of a call taking one string, e.g. AddMatch.
    static func stringBody(_ text: String) -> [UInt8] {
        var body = Marshaller()
        body.appendString(text)
        return body.bytes
    }

    /// Asks the bus to route matching messages (e.g. a daemon's signals) to this connection.
    func addMatch(_ rule: String) throws {
        try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 member: "AddMatch", signature: "s", body: Self.stringBody(rule))
    }

    /// Blocks until the reply to `serial` arrives (other messages, e.g. NameAcquired, are skipped).
    func waitForReply(serial expected: UInt32, timeout: TimeInterval = 10) throws -> Reply {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let message = try nextMessage(deadline: deadline), message.replySerial == expected {
                return Reply(isError: message.type == 3, errorName: message.errorName, body: message.body,
                             signature: message.signature)
            }
        }
    }

    /// The uint64 a successful Speak returns.
    static func speechID(from reply: Reply) -> UInt64? {
        guard !reply.isError, reply.signature == "t", reply.body.count >= 8 else { return nil }
        return reply.body[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }

    /// A blocking method call; an error reply is thrown.
    @discardableResult
    func call(destination: String, path: String, interface: String, member: String,
              signature: String = "", body: [UInt8] = [], timeout: TimeInterval = 10) throws -> Reply {
        let serial = try sendMessage(destination: destination, path: path, interface: interface, member: member,
                              signature: signature, body: body)
        let reply = try waitForReply(serial: serial, timeout: timeout)
        if reply.isError { throw CallError(description: "\(member): \(reply.errorName ?? "error")") }
        return reply
    }

    func sendMessage(destination: String, path: String, interface: String, member: String,
                      signature: String, body: [UInt8]) throws -> UInt32 {
        serial += 1
        var message = Marshaller()
        message.appendByte(UInt8(ascii: "l"))
        message.appendByte(1)  // METHOD_CALL
        message.appendByte(0)  // flags
        message.appendByte(1)  // protocol version
        message.appendUInt32(UInt32(body.count))
        message.appendUInt32(serial)
        var fields = Marshaller(startingAt: 16)  // the array's content starts after its length at 12
        func field(_ code: UInt8, _ type: Character, _ value: String) {
            fields.align(8)
            fields.appendByte(code)
            fields.appendSignature(String(type))
            if type == "g" { fields.appendSignature(value) } else { fields.appendString(value) }
        }
        field(1, "o", path)
        field(2, "s", interface)
        field(3, "s", member)
        field(6, "s", destination)
        if !signature.isEmpty { field(8, "g", signature) }
        message.appendUInt32(UInt32(fields.bytes.count))
        message.bytes += fields.bytes
        message.align(8)
        message.bytes += body
        try writeAll(message.bytes)
        return serial
    }

    // MARK: - Reading

    /// The next message of any kind; throws a `CallError` with `timedOut` if none is complete by `deadline`.
    func nextMessage(deadline: Date) throws -> Message? {
        try fill(16, deadline: deadline)
        guard inbox[0] == UInt8(ascii: "l") else { throw CallError(description: "big-endian message not supported") }
        let bodyLength = Int(Self.uint32(inbox, 4))
        let fieldsLength = Int(Self.uint32(inbox, 12))
        let headerEnd = (16 + fieldsLength + 7) & ~7
        try fill(headerEnd + bodyLength, deadline: deadline)
        let message = Array(inbox[0..<(headerEnd + bodyLength)])
        inbox.removeFirst(headerEnd + bodyLength)

        let receivedAt = lastReadAt
        var replySerial: UInt32?
        var errorName: String?
        var path: String?, interface: String?, member: String?
        var signature = ""
        var offset = 16
        while offset < 16 + fieldsLength {
            offset = (offset + 7) & ~7
            let code = message[offset]
            let typeLength = Int(message[offset + 1])
            let type = String(decoding: message[(offset + 2)..<(offset + 2 + typeLength)], as: UTF8.self)
            offset += 2 + typeLength + 1
            switch type {
            case "s", "o":
                offset = (offset + 3) & ~3
                let length = Int(Self.uint32(message, offset))
                let value = String(decoding: message[(offset + 4)..<(offset + 4 + length)], as: UTF8.self)
                offset += 4 + length + 1
                switch code {
                case 1: path = value
                case 2: interface = value
                case 3: member = value
                case 4: errorName = value
                default: break
                }
            case "g":
                let length = Int(message[offset])
                signature = String(decoding: message[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
                offset += 1 + length + 1
            case "u":
                offset = (offset + 3) & ~3
                if code == 5 { replySerial = Self.uint32(message, offset) }
                offset += 4
            default:
                throw CallError(description: "unexpected header field type \(type)")
            }
        }
        return Message(type: message[1], replySerial: replySerial, errorName: errorName, path: path,
                       interface: interface, member: member, signature: signature, body: Array(message[headerEnd...]),
                       receivedAt: receivedAt)
    }

    static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    /// Reads until the inbox holds at least `count` bytes.
    private func fill(_ count: Int, deadline: Date) throws {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while inbox.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw CallError(description: "no reply from the bus in time", timedOut: true) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw CallError(description: "bus connection closed") }
            inbox += buffer[0..<got]
            lastReadAt = Date()
        }
    }

    // MARK: - Writing and authentication

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw CallError(description: "write to bus: \(String(cString: strerror(errno)))") }
            sent += result
        }
    }

    private func authenticate() throws {
        let uid = String(getuid())
        let hexUID = uid.utf8.map { String(format: "%02x", $0) }.joined()
        try writeAll([0] + Array("AUTH EXTERNAL \(hexUID)\r\n".utf8))
        let answer = try readLine()
        guard answer.hasPrefix("OK") else { throw CallError(description: "bus refused authentication: \(answer)") }
        try writeAll(Array("BEGIN\r\n".utf8))
    }

    private func readLine() throws -> String {
        let deadline = Date(timeIntervalSinceNow: 5)
        while true {
            if let newline = inbox.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: inbox[..<newline], as: UTF8.self)
                inbox.removeFirst(newline + 1)
                return line.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try fill(inbox.count + 1, deadline: deadline)
        }
    }
}

/// Little-endian D-Bus marshalling of the few types the benchmark sends. Alignment is relative to the
/// start of the message, so `startingAt` gives where these bytes will sit in it.
private struct Marshaller {
    var bytes: [UInt8] = []
    private let base: Int

    init(startingAt base: Int = 0) { self.base = base }

    mutating func align(_ boundary: Int) {
        while (base + bytes.count) % boundary != 0 { bytes.append(0) }
    }

    mutating func appendByte(_ value: UInt8) { bytes.append(value) }

    mutating func appendUInt32(_ value: UInt32) {
        align(4)
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func appendString(_ value: String) {
        let utf8 = Array(value.utf8)
        appendUInt32(UInt32(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    mutating func appendSignature(_ value: String) {
        let utf8 = Array(value.utf8)
        bytes.append(UInt8(utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    /// An empty array: its length (0), then padding to the element alignment, which is there even when empty.
    mutating func appendEmptyArray(elementAlignment: Int) {
        appendUInt32(0)
        align(elementAlignment)
    }
}

// MARK: - Reading signal bodies

extension RawBusClient.Message {
    /// The first argument when it is a string (e.g. PropertiesChanged's interface name).
    var firstString: String? {
        guard signature.first == "s" || signature.first == "o", body.count >= 5 else { return nil }
        let length = Int(RawBusClient.uint32(body, 0))
        guard 4 + length <= body.count else { return nil }
        return String(decoding: body[4..<(4 + length)], as: UTF8.self)
    }

    /// `SpeechFinished(t id, s reason)`.
    var speechFinished: (id: UInt64, reason: String)? {
        guard member == "SpeechFinished", signature == "ts", body.count >= 13 else { return nil }
        let id = body[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        let length = Int(RawBusClient.uint32(body, 8))
        guard 12 + length <= body.count else { return nil }
        return (id, String(decoding: body[12..<(12 + length)], as: UTF8.self))
    }

    /// For `PropertiesChanged(s, a{sv}, as)`: the new value of `key` when it is among the changed
    /// properties with a string value. Found by looking for the marshalled key (a uint32 length on
    /// a 4-byte boundary, the name, its nul) followed by the variant signature "s"; the body starts
    /// on an 8-byte boundary of the message, so alignments can be counted from the body's start.
    func changedString(_ key: String) -> String? {
        guard member == "PropertiesChanged", signature == "sa{sv}as" else { return nil }
        let name = Array(key.utf8) + [0]
        var start = 4
        while start + name.count + 3 <= body.count {
            defer { start += 4 }
            guard RawBusClient.uint32(body, start - 4) == UInt32(name.count - 1),
                  body[start..<(start + name.count)].elementsEqual(name) else { continue }
            var offset = start + name.count
            guard body[offset] == 1, body[offset + 1] == UInt8(ascii: "s"), body[offset + 2] == 0 else { return nil }
            offset = (offset + 3 + 3) & ~3
            guard offset + 4 <= body.count else { return nil }
            let length = Int(RawBusClient.uint32(body, offset))
            guard offset + 4 + length <= body.count else { return nil }
            return String(decoding: body[(offset + 4)..<(offset + 4 + length)], as: UTF8.self)
        }
        return nil
    }
}
