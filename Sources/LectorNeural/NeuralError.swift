/// Why a neural voice cannot be loaded or speak: each case names the file or field at fault and,
/// where there is one, what to do, so the daemon can report it and go on with espeak-ng.
public enum NeuralError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No ONNX Runtime library could be opened; `tried` lists each candidate with its reason.
    case runtimeNotFound(tried: [String])
    case modelUnreadable(path: String, reason: String)
    /// The .onnx is not a whole ONNX protobuf (truncated, garbage, not a model).
    case modelCorrupt(path: String, reason: String)
    /// The graph has no single `Ceil` node, so no per-phoneme durations (word timing).
    case modelWithoutDurations(path: String, reason: String)
    /// Inputs or outputs are not those of a Piper (VITS) voice.
    case modelSignature(path: String, expected: String, found: String)
    case configUnreadable(path: String, reason: String)
    case configMissingField(path: String, field: String)
    case configInvalidField(path: String, field: String, reason: String)
    /// Phonemes the voice's `phoneme_id_map` lacks, each once, in order of first use.
    case missingPhonemes([String])
    /// ONNX Runtime refused a call (`operation`), with its own message.
    case runtime(operation: String, message: String)
    /// The model's output is not what its durations promise.
    case badOutput(String)
    /// `SynthesisCancellation.cancel()` stopped it.
    case cancelled
    /// The voice worker process could not start, load or answer; the text says which and why
    /// (a load failure is the worker's own error, as text).
    case worker(String)

    public var description: String {
        switch self {
        case .runtimeNotFound(let tried):
            return "ONNX Runtime not found (pip install onnxruntime; on Debian 13 apt install libonnxruntime1.21; "
                + "or set LECTOR_ONNXRUNTIME to libonnxruntime.so.1's path); tried: " + tried.joined(separator: "; ")
        case .modelUnreadable(let path, let reason): return "voice model \(path) cannot be read: \(reason)"
        case .modelCorrupt(let path, let reason): return "voice model \(path) is not a whole ONNX model: \(reason)"
        case .modelWithoutDurations(let path, let reason):
            return "voice model \(path) gives no phoneme durations: \(reason)"
        case .modelSignature(let path, let expected, let found):
            return "voice model \(path) is not a Piper voice: expected \(expected), found \(found)"
        case .configUnreadable(let path, let reason): return "voice config \(path) cannot be read: \(reason)"
        case .configMissingField(let path, let field): return "voice config \(path) lacks \(field)"
        case .configInvalidField(let path, let field, let reason): return "voice config \(path): \(field) \(reason)"
        case .missingPhonemes(let phonemes):
            return "phonemes missing from the voice's phoneme_id_map: "
                + phonemes.map { "\($0) (\($0.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")))" }
                    .joined(separator: ", ")
        case .runtime(let operation, let message): return "ONNX Runtime: \(operation) failed: \(message)"
        case .badOutput(let reason): return "voice output: \(reason)"
        case .cancelled: return "synthesis cancelled"
        case .worker(let reason): return reason
        }
    }
}
