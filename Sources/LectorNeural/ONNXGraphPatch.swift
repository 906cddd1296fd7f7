/// The one edit Lector makes to a Piper model, in memory before the session is created: the
/// output of the graph's single `Ceil` node (VITS `w_ceil`, frames per phoneme id) becomes a
/// second graph output, as piper1-gpl's patch_voice_with_alignment.py does with the onnx package.
///
/// An ONNX file is a protobuf ModelProto; this reads just enough of the wire format (graph = 7;
/// GraphProto node = 1, output = 12; NodeProto output = 2, op_type = 4; ValueInfoProto name = 1),
/// checks that every field of the model and its graph is whole (so a truncated or garbage file is
/// refused by name), appends one `output` ValueInfoProto to the graph and rewrites the graph's
/// length prefix. Nothing else in the file changes.
public enum ONNXGraphPatch {
    public struct Result: Sendable {
        /// The model to hand ONNX Runtime.
        public var model: [UInt8]
        /// The Ceil node's output tensor: the name of the durations output.
        public var durationsOutput: String
        /// The graph's outputs after the edit, in order.
        public var outputs: [String]
        /// The file already had it as an output (patched on disk by Piper's script): nothing added.
        public var alreadyOutput: Bool
    }

    /// Why a model cannot be patched: `corrupt` (not whole protobuf) or `noDurations` (no single Ceil).
    public enum Failure: Error, Equatable {
        case corrupt(String)
        case noDurations(String)
    }

    /// The ONNX TensorProto element type given to the added output: FLOAT (Ceil of a float).
    /// `typed: false` leaves the ValueInfoProto's type out, as piper1-gpl does; ONNX Runtime
    /// infers it (checked with 1.32).
    static let floatElementType: UInt64 = 1

    public static func addingDurationsOutput(to model: [UInt8], typed: Bool = true) throws(Failure) -> Result {
        do {
            return try model.withUnsafeBytes { try addingDurationsOutput(to: $0, typed: typed) }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .corrupt("\(error)")   // withUnsafeBytes rethrows untyped; only Failure comes
        }
    }

    /// The same from bytes in place (a mapped file): the patched model is the one copy made.
    public static func addingDurationsOutput(to model: UnsafeRawBufferPointer, typed: Bool = true) throws(Failure) -> Result {
        // ModelProto: find the graph (field 7), checking every top-level field is whole.
        var graphField: (tagStart: Int, bodyStart: Int, bodyEnd: Int)?
        var reader = Reader(bytes: model, range: 0..<model.count)
        while !reader.atEnd {
            let tagStart = reader.position
            let field = try reader.field(in: "ModelProto")
            if field.number == 7, case .bytes(let body) = field.value {
                guard graphField == nil else { throw .corrupt("two graphs in the model") }
                graphField = (tagStart, body.lowerBound, body.upperBound)
            }
        }
        guard let graphField else { throw .corrupt(model.isEmpty ? "the file is empty" : "no graph in the model") }

        // GraphProto: the Ceil nodes' outputs and the graph's outputs.
        var ceilOutputs: [String] = []
        var outputs: [String] = []
        var graph = Reader(bytes: model, range: graphField.bodyStart..<graphField.bodyEnd)
        while !graph.atEnd {
            let field = try graph.field(in: "GraphProto")
            guard case .bytes(let body) = field.value else { continue }
            if field.number == 1 {
                var opType = ""
                var nodeOutputs: [String] = []
                var node = Reader(bytes: model, range: body)
                while !node.atEnd {
                    let nodeField = try node.field(in: "NodeProto")
                    guard case .bytes(let text) = nodeField.value else { continue }
                    if nodeField.number == 4 { opType = try string(model, text) }
                    if nodeField.number == 2 { nodeOutputs.append(try string(model, text)) }
                }
                if opType == "Ceil" { ceilOutputs += nodeOutputs }
            } else if field.number == 12 {
                var info = Reader(bytes: model, range: body)
                var name = ""
                while !info.atEnd {
                    let infoField = try info.field(in: "ValueInfoProto")
                    if infoField.number == 1, case .bytes(let text) = infoField.value { name = try string(model, text) }
                }
                outputs.append(name)
            }
        }
        guard ceilOutputs.count == 1, let ceil = ceilOutputs.first else {
            throw .noDurations(ceilOutputs.isEmpty ? "the graph has no Ceil node"
                               : "the graph has \(ceilOutputs.count) Ceil outputs (\(ceilOutputs.joined(separator: ", ")))")
        }
        if outputs.contains(ceil) {
            return Result(model: Array(model), durationsOutput: ceil, outputs: outputs, alreadyOutput: true)
        }

        // The new ValueInfoProto { name, type { tensor_type { elem_type: FLOAT } } }.
        var valueInfo = Writer()
        valueInfo.bytes(1, Array(ceil.utf8))
        if typed {
            var tensor = Writer()
            tensor.varint(1, floatElementType)
            var type = Writer()
            type.bytes(1, tensor.out)
            valueInfo.bytes(2, type.out)
        }
        var graphTail = Writer()
        graphTail.bytes(12, valueInfo.out)

        let newGraphLength = graphField.bodyEnd - graphField.bodyStart + graphTail.out.count
        var patched: [UInt8] = []
        patched.reserveCapacity(model.count + graphTail.out.count + 8)
        patched += model[0..<graphField.tagStart]
        var header = Writer()
        header.tag(7, wireType: 2)
        header.rawVarint(UInt64(newGraphLength))
        patched += header.out
        patched += model[graphField.bodyStart..<graphField.bodyEnd]
        patched += graphTail.out
        patched += model[graphField.bodyEnd...]
        return Result(model: patched, durationsOutput: ceil, outputs: outputs + [ceil], alreadyOutput: false)
    }

    private static func string(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(Failure) -> String {
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw .corrupt("a name is not UTF-8")
        }
        return text
    }

    // MARK: - wire format

    enum Value {
        case varint(UInt64)
        case fixed
        case bytes(Range<Int>)
    }

    /// Reads fields within `range`, refusing anything that runs past it.
    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        let end: Int

        init(bytes: UnsafeRawBufferPointer, range: Range<Int>) {
            self.bytes = bytes
            position = range.lowerBound
            end = range.upperBound
        }

        var atEnd: Bool { position >= end }

        mutating func varint(in message: String) throws(Failure) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < end else { throw .corrupt("\(message) ends inside a number (truncated?)") }
                guard shift < 64 else { throw .corrupt("\(message) has an overlong number") }
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }

        mutating func field(in message: String) throws(Failure) -> (number: UInt64, value: Value) {
            let tag = try varint(in: message)
            let number = tag >> 3
            guard number > 0 else { throw .corrupt("\(message) has field number 0 (not protobuf)") }
            switch tag & 7 {
            case 0:
                return (number, .varint(try varint(in: message)))
            case 1, 5:
                let size = tag & 7 == 1 ? 8 : 4
                guard end - position >= size else { throw .corrupt("\(message) ends inside field \(number) (truncated?)") }
                position += size
                return (number, .fixed)
            case 2:
                let length = try varint(in: message)
                guard length <= UInt64(end - position) else {
                    throw .corrupt("\(message) field \(number) runs \(length) bytes past the end (truncated?)")
                }
                let start = position
                position += Int(length)
                return (number, .bytes(start..<position))
            default:
                throw .corrupt("\(message) has wire type \(tag & 7) in field \(number) (not an ONNX model)")
            }
        }
    }

    /// Builds protobuf bytes (the added output; the tests' hand-built models).
    struct Writer {
        var out: [UInt8] = []

        mutating func rawVarint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                out.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            out.append(UInt8(value))
        }

        mutating func tag(_ number: UInt64, wireType: UInt64) {
            rawVarint(number << 3 | wireType)
        }

        mutating func varint(_ number: UInt64, _ value: UInt64) {
            tag(number, wireType: 0)
            rawVarint(value)
        }

        mutating func bytes(_ number: UInt64, _ value: [UInt8]) {
            tag(number, wireType: 2)
            rawVarint(UInt64(value.count))
            out += value
        }

        mutating func string(_ number: UInt64, _ value: String) {
            bytes(number, Array(value.utf8))
        }
    }
}
