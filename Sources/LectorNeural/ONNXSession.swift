import CLinux
import CONNXRuntime
import Foundation

// Every ONNX Runtime call Lector makes is in this file.

/// The ONNX Runtime library: opened on first use (never at start: a daemon that never uses a
/// neural voice does not load it) and kept for the life of the process (it is not safe to unload).
final class ORTLibrary: @unchecked Sendable {   // its only state is an immutable function table
    let api: UnsafePointer<LectorOrtApi>
    let path: String
    let version: String

    private init(api: UnsafePointer<LectorOrtApi>, path: String, version: String) {
        self.api = api
        self.path = path
        self.version = version
    }

    /// Tried once per process, in `RuntimeLocator.runtimeCandidates` order.
    static let shared: Result<ORTLibrary, NeuralError> = {
        var tried: [String] = []
        for candidate in RuntimeLocator.runtimeCandidates(sitePackages: RuntimeLocator.sitePackages()) {
            var error = [CChar](repeating: 0, count: 512)
            var version: UnsafePointer<CChar>?
            if let api = lector_ort_open(candidate, &version, &error, error.count) {
                return .success(ORTLibrary(api: api, path: candidate,
                                           version: version.map { String(cString: $0) } ?? "?"))
            }
            tried.append("\(candidate): \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return .failure(.runtimeNotFound(tried: tried))
    }()
}

/// One model loaded into ONNX Runtime, and the one owner of everything it allocated: `deinit`
/// releases session, options, memory info and env in the reverse of their creation; each run's
/// values are released before `run` returns.
final class ORTSession: @unchecked Sendable {   // all use of the handles is under `lock`
    enum Input {
        case int64([Int64], shape: [Int64])
        case float([Float], shape: [Int64])
    }

    let library: ORTLibrary
    let memory: ORTMemory
    private(set) var inputNames: [String] = []
    private(set) var outputNames: [String] = []
    private var env: OpaquePointer?
    private var memoryInfo: OpaquePointer?
    private var options: OpaquePointer?
    private var session: OpaquePointer?
    private let lock = NSLock()

    private var api: LectorOrtApi { library.api.pointee }

    /// `intraOpThreads` 1: Lector runs on small machines (2 cores here, shared with the sound
    /// server and the reader's UI); one thread already synthesizes many times faster than real
    /// time, and ONNX Runtime's default (one per core, spinning) would take every core.
    init(model: [UInt8], library: ORTLibrary, intraOpThreads: Int32 = 1, memory: ORTMemory = .default) throws {
        self.library = library
        self.memory = memory
        let api = library.api.pointee
        try check(api.CreateEnv!(Int32(LECTOR_ORT_LOGGING_LEVEL_ERROR), "lector", &env), "CreateEnv")
        try check(api.CreateCpuMemoryInfo!(Int32(LECTOR_ORT_ARENA_ALLOCATOR), Int32(LECTOR_ORT_MEM_TYPE_DEFAULT),
                                          &memoryInfo), "CreateCpuMemoryInfo")
        try check(api.CreateSessionOptions!(&options), "CreateSessionOptions")
        try check(api.SetIntraOpNumThreads!(options, intraOpThreads), "SetIntraOpNumThreads")
        try check(api.SetInterOpNumThreads!(options, 1), "SetInterOpNumThreads")
        if memory == .noArena {
            try check(api.DisableCpuMemArena!(options), "DisableCpuMemArena")
        }
        try model.withUnsafeBytes { bytes in
            try check(api.CreateSessionFromArray!(env, bytes.baseAddress, bytes.count, options, &session),
                      "CreateSession")
        }
        var allocator: OpaquePointer?
        try check(api.GetAllocatorWithDefaultOptions!(&allocator), "GetAllocatorWithDefaultOptions")
        var count = 0
        try check(api.SessionGetInputCount!(session, &count), "SessionGetInputCount")
        for index in 0..<count {
            var name: UnsafeMutablePointer<CChar>?
            try check(api.SessionGetInputName!(session, index, allocator, &name), "SessionGetInputName")
            inputNames.append(take(name, allocator))
        }
        try check(api.SessionGetOutputCount!(session, &count), "SessionGetOutputCount")
        for index in 0..<count {
            var name: UnsafeMutablePointer<CChar>?
            try check(api.SessionGetOutputName!(session, index, allocator, &name), "SessionGetOutputName")
            outputNames.append(take(name, allocator))
        }
    }

    deinit {
        let api = self.api
        if let session { api.ReleaseSession!(session) }
        if let options { api.ReleaseSessionOptions!(options) }
        if let memoryInfo { api.ReleaseMemoryInfo!(memoryInfo) }
        if let env { api.ReleaseEnv!(env) }
        // Freed heap pages back to the kernel: a released voice otherwise leaves ~70 MB of its
        // weights in glibc's free lists (RSS 142 → 246 → 215 MB; trimmed, 144).
        _ = malloc_trim(0)
    }

    /// Runs the model; returns each of `outputs` as floats (int64 outputs converted).
    /// `cancellation` stops the run at once from another thread (`NeuralError.cancelled`).
    func run(inputs: [(name: String, value: Input)], outputs: [String],
             cancellation: SynthesisCancellation? = nil) throws -> [[Float]] {
        lock.lock()
        defer { lock.unlock() }
        let api = self.api
        var runOptions: OpaquePointer?
        var values: [OpaquePointer?] = []
        var buffers: [UnsafeMutableRawBufferPointer] = []
        var results = [OpaquePointer?](repeating: nil, count: outputs.count)
        defer {   // results, values, the input buffers they pointed into, then the run's options
            for value in results.reversed() { if let value { api.ReleaseValue!(value) } }
            for value in values.reversed() { if let value { api.ReleaseValue!(value) } }
            for buffer in buffers { buffer.deallocate() }
            cancellation?.detach()
            if let runOptions { api.ReleaseRunOptions!(runOptions) }
        }
        try check(api.CreateRunOptions!(&runOptions), "CreateRunOptions")
        if memory == .shrinkAfterRun {
            // Give the arena's run-sized chunks back after each run: a long sentence otherwise
            // keeps its peak (hundreds of MB) for as long as the voice is loaded.
            try check(api.AddRunConfigEntry!(runOptions, "memory.enable_memory_arena_shrinkage", "cpu:0"),
                      "AddRunConfigEntry")
        }
        if let cancellation, let runOptions, !cancellation.attach(runOptions, library: library) {
            throw NeuralError.cancelled
        }
        for (_, input) in inputs {
            let (buffer, shape, type): (UnsafeMutableRawBufferPointer, [Int64], Int32)
            switch input {
            case .int64(let data, let inputShape):
                buffer = .allocate(byteCount: max(1, data.count * 8), alignment: 8)
                data.withUnsafeBytes { buffer.copyMemory(from: $0) }
                (shape, type) = (inputShape, Int32(LECTOR_ORT_TENSOR_INT64))
            case .float(let data, let inputShape):
                buffer = .allocate(byteCount: max(1, data.count * 4), alignment: 8)
                data.withUnsafeBytes { buffer.copyMemory(from: $0) }
                (shape, type) = (inputShape, Int32(LECTOR_ORT_TENSOR_FLOAT))
            }
            buffers.append(buffer)
            var value: OpaquePointer?
            try shape.withUnsafeBufferPointer { dims in
                try check(api.CreateTensorWithDataAsOrtValue!(memoryInfo, buffer.baseAddress, buffer.count,
                                                              dims.baseAddress, dims.count, type, &value),
                          "CreateTensor")
            }
            values.append(value)
        }
        try withCStrings(inputs.map(\.name)) { inputNames in
            try withCStrings(outputs) { outputNames in
                do {
                    try check(api.Run!(session, runOptions, inputNames, values, inputs.count,
                                       outputNames, outputs.count, &results), "Run")
                } catch NeuralError.runtime where cancellation?.isCancelled == true {
                    throw NeuralError.cancelled
                }
            }
        }
        return try results.map { value in
            var info: OpaquePointer?
            try check(api.GetTensorTypeAndShape!(value, &info), "GetTensorTypeAndShape")
            defer { api.ReleaseTensorTypeAndShapeInfo!(info) }
            var count = 0
            var type: Int32 = 0
            try check(api.GetTensorShapeElementCount!(info, &count), "GetTensorShapeElementCount")
            try check(api.GetTensorElementType!(info, &type), "GetTensorElementType")
            var data: UnsafeMutableRawPointer?
            try check(api.GetTensorMutableData!(value, &data), "GetTensorMutableData")
            guard let data, count > 0 else { return [] }
            switch type {
            case Int32(LECTOR_ORT_TENSOR_FLOAT):
                return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count))
            case Int32(LECTOR_ORT_TENSOR_INT64):
                return UnsafeBufferPointer(start: data.assumingMemoryBound(to: Int64.self), count: count).map { Float($0) }
            default:
                throw NeuralError.badOutput("an output of ONNX element type \(type), not float or int64")
            }
        }
    }

    private func check(_ status: OpaquePointer?, _ operation: String) throws {
        guard let status else { return }
        let api = self.api
        let message = api.GetErrorMessage!(status).map { String(cString: $0) } ?? "code \(api.GetErrorCode!(status))"
        api.ReleaseStatus!(status)
        throw NeuralError.runtime(operation: operation, message: message)
    }

    /// A name ONNX Runtime allocated, copied and freed with its allocator.
    private func take(_ name: UnsafeMutablePointer<CChar>?, _ allocator: OpaquePointer?) -> String {
        guard let name else { return "" }
        let text = String(cString: name)
        if let status = api.AllocatorFree!(allocator, name) { api.ReleaseStatus!(status) }
        return text
    }
}

/// How ONNX Runtime keeps the memory a run needs (a long sentence needs hundreds of MB).
public enum ORTMemory: Sendable {
    /// Its CPU arena keeps every chunk for later runs: fastest, but the peak stays.
    case keepArena
    /// The arena, shrunk at the end of each run.
    case shrinkAfterRun
    /// No arena: malloc and free each time.
    case noArena

    public static let `default` = ORTMemory.shrinkAfterRun
}

/// Stops a synthesis at once from any thread: ONNX Runtime's terminate flag on the run's
/// options, which it checks between graph nodes, or the voice worker's `cancel` message.
public final class SynthesisCancellation: @unchecked Sendable {   // state under `lock`
    private let lock = NSLock()
    private var cancelled = false
    private var running: (options: OpaquePointer, library: ORTLibrary)?
    private var onCancel: (@Sendable () -> Void)?

    public init() {}

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    public func cancel() {
        lock.lock()
        cancelled = true
        if let (options, library) = running, let status = library.api.pointee.RunOptionsSetTerminate!(options) {
            library.api.pointee.ReleaseStatus!(status)
        }
        let action = onCancel
        onCancel = nil
        lock.unlock()
        action?()
    }

    /// Runs `action` once at `cancel()` (at once if already cancelled); nil removes it.
    public func whenCancelled(_ action: (@Sendable () -> Void)?) {
        lock.lock()
        guard cancelled, let action else {
            onCancel = action
            lock.unlock()
            return
        }
        lock.unlock()
        action()
    }

    /// The run's options, while it runs; false if already cancelled.
    func attach(_ options: OpaquePointer, library: ORTLibrary) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !cancelled else { return false }
        running = (options, library)
        return true
    }

    /// Before the options are released.
    func detach() {
        lock.lock()
        running = nil
        lock.unlock()
    }
}

/// `strings` as a C array of C strings for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> R) rethrows -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return try body(copies.map { UnsafePointer($0) })
}
