import Foundation
import Glibc

/// One end of the socket between the daemon and its voice worker: whole `WorkerMessage`s out
/// (one writer at a time, so a `cancel` from another thread never cuts into a request) and in.
/// Its descriptors are closed by `close()` only (a process's standard ones never are).
public final class WorkerChannel: @unchecked Sendable {   // `reader` is the receiving thread's; `shut` and sends under `sending`
    public let input: Int32
    public let output: Int32
    private var reader = WorkerMessage.Reader()
    private let sending = NSLock()
    private var shut = false

    public enum Failure: Error, Equatable, CustomStringConvertible, Sendable {
        /// The other end closed (the worker ended, or the daemon went).
        case closed
        case timedOut
        case malformed(String)
        case system(String, Int32)

        public var description: String {
            switch self {
            case .closed: return "the other end closed"
            case .timedOut: return "no answer in time"
            case .malformed(let reason): return "a malformed message (\(reason))"
            case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
            }
        }
    }

    public init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Sends the whole message; never raises SIGPIPE (a gone peer is `.closed`).
    public func send(_ message: WorkerMessage) throws(Failure) {
        let bytes = message.encoded()
        sending.lock()
        defer { sending.unlock() }
        // A late cancel from another thread must not write into a reused descriptor number.
        guard !shut else { throw .closed }
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Glibc.send(output, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .system("send", errno)
            }
            sent += result
        }
    }

    /// Closes the descriptors; every later send is `.closed`. From the receiving thread.
    public func close() {
        sending.lock()
        defer { sending.unlock() }
        guard !shut else { return }
        shut = true
        Glibc.close(input)
        if output != input { Glibc.close(output) }
    }

    /// The next message, waiting at most `seconds` (nil: as long as it takes).
    public func receive(within seconds: Double? = nil) throws(Failure) -> WorkerMessage {
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            do {
                if let message = try reader.next() { return message }
            } catch {
                throw .malformed(error.description)
            }
            var poller = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let wait = deadline.map { Int32(max(0, min(Double(Int32.max), $0.timeIntervalSinceNow * 1000))) } ?? -1
            let ready = poll(&poller, 1, wait)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("poll", errno)
            }
            if ready == 0 { throw .timedOut }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .closed }
                throw .system("read", errno)
            }
            if count == 0 { throw .closed }
            reader.append(chunk[..<count])
        }
    }
}
