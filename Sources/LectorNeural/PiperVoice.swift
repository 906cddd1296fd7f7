import Foundation

/// A Piper voice that speaks phoneme ids: in this process (`PiperVoice`) or in Lector's voice
/// worker process (`PiperWorker`, what the daemon uses).
public protocol PiperSpeaker: AnyObject, Sendable {
    var config: PiperConfig { get }
    var phonemeIDs: PhonemeIDs { get }
    /// Blocks for the run; `cancellation` stops it at once from another thread.
    func speak(ids: [Int64], lengthScale: Float, cancellation: SynthesisCancellation) throws -> PiperAudio
}

/// A Piper (VITS) voice, `NAME.onnx` + `NAME.onnx.json`, loaded into ONNX Runtime with its
/// per-phoneme durations exposed: phoneme ids in, float PCM at the voice's rate and the samples
/// each id lasts out.
public final class PiperVoice: PiperSpeaker {
    public let name: String
    public let modelPath: String
    public let config: PiperConfig
    public let phonemeIDs: PhonemeIDs
    /// The Ceil tensor added as the durations output.
    public let durationsOutput: String
    /// The ONNX Runtime library in use and its version.
    public let runtimePath: String
    public let runtimeVersion: String
    private let session: ORTSession

    /// Loads `modelPath` and its config (`modelPath` + ".json" unless given). Checks, in this
    /// order: the config, the model file (whole protobuf, one Ceil node), the runtime, the
    /// model's inputs and outputs; each failure is its own `NeuralError`.
    public init(modelPath: String, configPath: String? = nil, intraOpThreads: Int32 = 1,
                memory: ORTMemory = .default) throws {
        let config = try PiperConfig(contentsOf: configPath ?? modelPath + ".json")
        let patch = try Self.patchedModel(at: modelPath)
        let library = try ORTLibrary.shared.get()
        let session: ORTSession
        do {
            session = try ORTSession(model: patch.model, library: library, intraOpThreads: intraOpThreads,
                                     memory: memory)
        } catch NeuralError.runtime(let operation, let message) where operation == "CreateSession" {
            throw NeuralError.modelCorrupt(path: modelPath, reason: "ONNX Runtime refused it: \(message)")
        }
        let expectedInputs = Self.expectedInputs(numSpeakers: config.numSpeakers)
        let expectedOutputs = ["output", patch.durationsOutput]
        guard Set(session.inputNames) == Set(expectedInputs), session.inputNames.count == expectedInputs.count,
              session.outputNames == expectedOutputs
        else {
            throw NeuralError.modelSignature(
                path: modelPath,
                expected: "inputs \(expectedInputs), outputs \(expectedOutputs)",
                found: "inputs \(session.inputNames), outputs \(session.outputNames)")
        }
        self.name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
        self.modelPath = modelPath
        self.config = config
        self.phonemeIDs = PhonemeIDs(map: config.phonemeIDMap, clusters: config.vowelClusters)
        self.durationsOutput = patch.durationsOutput
        self.runtimePath = library.path
        self.runtimeVersion = library.version
        self.session = session
    }

    /// What a Piper voice takes: `sid` only when it has several speakers (piper1-gpl export_onnx.py).
    static func expectedInputs(numSpeakers: Int) -> [String] {
        ["input", "input_lengths", "scales"] + (numSpeakers > 1 ? ["sid"] : [])
    }

    /// The model file, read and patched in memory (`ONNXGraphPatch`), with named errors.
    static func patchedModel(at path: String) throws -> ONNXGraphPatch.Result {
        let file: Data
        do {
            // Mapped, not read: the patched model is the one copy (ONNX Runtime makes its own later).
            file = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw NeuralError.modelUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        return try file.withUnsafeBytes { try patched($0, path: path) }
    }

    /// Checks a model's bytes as loading it does before ONNX Runtime: a whole ONNX model whose
    /// graph has the one `Ceil` node (the durations). No runtime is needed, so a voice can be
    /// refused before it is installed (`lector voices add`); the runtime's own checks (its inputs
    /// and outputs) come when it first speaks. `path` names the file in the errors.
    ///
    ///     let model = try Data(contentsOf: url)
    ///     try PiperVoice.checkModel(model, path: url.path)   // throws .modelCorrupt for a truncated file
    @discardableResult
    public static func checkModel(_ model: Data, path: String) throws -> String {
        try model.withUnsafeBytes { try patched($0, path: path) }.durationsOutput
    }

    /// `ONNXGraphPatch`'s failures as the `NeuralError`s that name `path`.
    private static func patched(_ bytes: UnsafeRawBufferPointer, path: String) throws -> ONNXGraphPatch.Result {
        do {
            return try ONNXGraphPatch.addingDurationsOutput(to: bytes)
        } catch ONNXGraphPatch.Failure.corrupt(let reason) {
            throw NeuralError.modelCorrupt(path: path, reason: reason)
        } catch ONNXGraphPatch.Failure.noDurations(let reason) {
            throw NeuralError.modelWithoutDurations(path: path, reason: reason)
        }
    }

    /// Synthesizes `ids` (a `PhonemeIDs.Mapping`'s). `lengthScale` is speed (larger is slower);
    /// nil scales are the voice's own. Blocks for the model's run: call it off the event loop;
    /// `cancellation` stops it at once from another thread.
    public func synthesize(ids: [Int64], lengthScale: Float? = nil, noiseScale: Float? = nil,
                           noiseW: Float? = nil, speaker: Int = 0,
                           cancellation: SynthesisCancellation? = nil) throws -> PiperAudio {
        guard !ids.isEmpty else { return PiperAudio(samples: [], sampleRate: config.sampleRate, idSamples: []) }
        let scales = [noiseScale ?? config.noiseScale, lengthScale ?? config.lengthScale, noiseW ?? config.noiseW]
        var inputs: [(name: String, value: ORTSession.Input)] = [
            ("input", .int64(ids, shape: [1, Int64(ids.count)])),
            ("input_lengths", .int64([Int64(ids.count)], shape: [1])),
            ("scales", .float(scales, shape: [3])),
        ]
        if config.numSpeakers > 1 {
            inputs.append(("sid", .int64([Int64(speaker)], shape: [1])))
        }
        let outputs = try session.run(inputs: inputs, outputs: ["output", durationsOutput],
                                      cancellation: cancellation)
        let idSamples = try Durations.samples(frames: outputs[1], hopLength: config.hopLength)
        try Durations.check(idSamples: idSamples, idCount: ids.count, audioSamples: outputs[0].count)
        return PiperAudio(samples: outputs[0], sampleRate: config.sampleRate, idSamples: idSamples)
    }
}

extension PiperVoice {
    public func speak(ids: [Int64], lengthScale: Float, cancellation: SynthesisCancellation) throws -> PiperAudio {
        try synthesize(ids: ids, lengthScale: lengthScale, cancellation: cancellation)
    }
}

/// One utterance from a Piper voice.
public struct PiperAudio: Equatable, Sendable {
    /// Mono float PCM, about -1...1.
    public var samples: [Float]
    public var sampleRate: Int
    /// Samples each phoneme id lasts; they add up to `samples.count`.
    public var idSamples: [Int]

    public var seconds: Double { Double(samples.count) / Double(sampleRate) }
}
