import Foundation

/// What Lector's voice worker (`lector-piper`) and the daemon say to each other over the one
/// socket between them: a frame is a little-endian UInt32 length, then a kind byte and its payload.
/// One synthesis at a time: each `synthesize` is answered by exactly one `audio`, `failed` or
/// `cancelled`; a `cancel` with nothing running is ignored.
///
///     let frame = WorkerMessage.synthesize(ids: [1, 0, 20, 0, 2], lengthScale: 1).encoded()
///     var reader = WorkerMessage.Reader()
///     reader.append(frame[...])
///     try reader.next()   // .synthesize(ids: [1, 0, 20, 0, 2], lengthScale: 1.0)
public enum WorkerMessage: Equatable, Sendable {
    // To the worker.
    case synthesize(ids: [Int64], lengthScale: Float)
    case cancel
    // From the worker.
    /// The voice is loaded; every later failure is one run's.
    case ready(sampleRate: Int, runtime: String)
    case audio(PiperAudio)
    /// A load (then the worker ends) or a run failed; the text is the `NeuralError`'s.
    case failed(String)
    case cancelled

    /// Frames larger than this are refused: an hour of 22-kHz float audio is 317 MB; one clause is
    /// a few hundred kB.
    public static let largestFrame = 256 << 20

    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public func encoded() -> [UInt8] {
        var body = Writer()
        switch self {
        case .synthesize(let ids, let lengthScale):
            body.byte(1)
            body.float(lengthScale)
            body.count(ids.count)
            for id in ids { body.int64(id) }
        case .cancel:
            body.byte(2)
        case .ready(let sampleRate, let runtime):
            body.byte(0x81)
            body.count(sampleRate)
            body.text(runtime)
        case .audio(let audio):
            body.byte(0x82)
            body.count(audio.sampleRate)
            body.count(audio.samples.count)
            audio.samples.withUnsafeBytes { body.bytes += $0 }
            body.count(audio.idSamples.count)
            for samples in audio.idSamples { body.count(samples) }
        case .failed(let reason):
            body.byte(0x83)
            body.text(reason)
        case .cancelled:
            body.byte(0x84)
        }
        var frame = Writer()
        frame.count(body.bytes.count)
        return frame.bytes + body.bytes
    }

    /// Splits a byte stream into messages.
    public struct Reader: Sendable {
        private var buffer: [UInt8] = []
        private var start = 0

        public init() {}

        public mutating func append(_ bytes: ArraySlice<UInt8>) {
            if start > 0 && start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            buffer += bytes
        }

        /// The next whole message, or nil until more bytes come.
        public mutating func next() throws(Malformed) -> WorkerMessage? {
            guard buffer.count - start >= 4 else { return nil }
            var header = Parser(buffer[start..<start + 4])
            let length = try header.count()
            guard length >= 1, length <= WorkerMessage.largestFrame else {
                throw Malformed(description: "a frame of \(length) bytes")
            }
            guard buffer.count - start - 4 >= length else { return nil }
            let body = buffer[start + 4..<start + 4 + length]
            start += 4 + length
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
                start = 0
            }
            return try WorkerMessage.decode(body)
        }
    }

    static func decode(_ body: ArraySlice<UInt8>) throws(Malformed) -> WorkerMessage {
        var parser = Parser(body)
        let kind = try parser.byte()
        let message: WorkerMessage
        switch kind {
        case 1:
            let lengthScale = try parser.float()
            let count = try parser.count(of: 8)
            message = .synthesize(ids: try (0..<count).map { _ throws(Malformed) in try parser.int64() }, lengthScale: lengthScale)
        case 2:
            message = .cancel
        case 0x81:
            message = .ready(sampleRate: try parser.count(), runtime: try parser.text())
        case 0x82:
            let sampleRate = try parser.count()
            let count = try parser.count(of: 4)
            let samples = try parser.floats(count)
            let ids = try parser.count(of: 4)
            let idSamples = try (0..<ids).map { _ throws(Malformed) in try parser.count() }
            message = .audio(PiperAudio(samples: samples, sampleRate: sampleRate, idSamples: idSamples))
        case 0x83:
            message = .failed(try parser.text())
        case 0x84:
            message = .cancelled
        default:
            throw Malformed(description: "a message of unknown kind \(kind)")
        }
        guard parser.isAtEnd else { throw Malformed(description: "\(parser.remaining) stray bytes after a message of kind \(kind)") }
        return message
    }

    private struct Writer {
        var bytes: [UInt8] = []
        mutating func byte(_ value: UInt8) { bytes.append(value) }
        mutating func count(_ value: Int) { withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { bytes += $0 } }
        mutating func int64(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        mutating func float(_ value: Float) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 } }
        mutating func text(_ value: String) {
            count(value.utf8.count)
            bytes += value.utf8
        }
    }

    private struct Parser {
        private let bytes: ArraySlice<UInt8>
        private var at: Int

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            at = bytes.startIndex
        }

        var isAtEnd: Bool { at == bytes.endIndex }
        var remaining: Int { bytes.endIndex - at }

        private mutating func take(_ count: Int) throws(Malformed) -> ArraySlice<UInt8> {
            guard count >= 0, remaining >= count else { throw Malformed(description: "a message cut short") }
            defer { at += count }
            return bytes[at..<at + count]
        }

        mutating func byte() throws(Malformed) -> UInt8 { try take(1).first! }

        mutating func count() throws(Malformed) -> Int {
            Int(try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }

        /// A count of items of `size` bytes each, checked against what is left.
        mutating func count(of size: Int) throws(Malformed) -> Int {
            let value = try count()
            guard value * size <= remaining else { throw Malformed(description: "a message cut short") }
            return value
        }

        mutating func int64() throws(Malformed) -> Int64 {
            Int64(bitPattern: try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        }

        mutating func float() throws(Malformed) -> Float {
            Float(bitPattern: try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }

        mutating func floats(_ count: Int) throws(Malformed) -> [Float] {
            let raw = try take(count * 4)
            return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                raw.withUnsafeBytes { source in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(from: source)
                }
                initialized = count
            }
        }

        mutating func text() throws(Malformed) -> String {
            let length = try count(of: 1)
            return String(decoding: try take(length), as: UTF8.self)
        }
    }
}
