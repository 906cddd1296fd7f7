import Foundation
import Glibc
import LectorCore
import LectorNeural
import LectorSpeech

/// A Piper voice speaking, on a thread of its own ("lector-neural"): for each job it asks
/// espeak-ng for the phoneme reading (`SpeechEngine.phonemeReading`: the same text handling as the
/// espeak-ng voice), runs the model, turns the audio into s16 at `outputRate` and puts every word
/// on its first sample (`NeuralWordTiming`), then pushes the words, the audio and `finished` to
/// `mailbox`, as espeak-ng's thread does. The model is loaded at the first job: in the voice
/// worker process (`Engine.worker`, the daemon's), which ends after `idleSeconds` without a job
/// and starts again at the next; or in this process (`Engine.inProcess`).
///
/// Whatever goes wrong (no runtime, a broken model, a phoneme the voice lacks, a failed run, a
/// worker that crashed or hung) is told through `onProblem`, and that job is handed to espeak-ng
/// with `espeakVoice`, same id, so narration goes on from the same word. A worker that crashed or
/// hung is replaced at the next job, up to `Engine.restarts` times; once a new one has spoken,
/// `onProblem(nil)` says the voice speaks again. Voice files replaced on disk (`lector voices add
/// --force`) are loaded at the next job, a failed voice given another chance.
/// `cancel` stops a run at once.
///
///     let neural = NeuralSynthesizer(modelPath: joe, espeakVoice: enUS, espeak: engine, mailbox: engine.mailbox,
///                                    outputRate: engine.sampleRate) { Journal.log(.warning, $0) }
///     neural.synthesize(id: 7, request: try SpeechRequest(text: "Call me Ishmael."), delivery: .immediate)
///     // mailbox: .word(7, "Call" at 0), …, .audio(7, …), .finished(7, ok: true, …)
public final class NeuralSynthesizer: @unchecked Sendable {   // queue state under `condition`; `loaded` worker-only
    public enum Engine: Sendable {
        /// The model in this process (engine tests and benchmarks).
        case inProcess
        /// The model in `lector-piper` at `path` (nil: not installed; each job says so).
        case worker(path: String?, idleSeconds: Double = 30, hangSeconds: Double = 10)

        /// The installed worker, with `LECTOR_NEURAL_IDLE_SECONDS` / `LECTOR_NEURAL_HANG_SECONDS`
        /// if set (tests shorten them).
        public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> Engine {
            func seconds(_ name: String, _ fallback: Double) -> Double {
                environment[name].flatMap(Double.init).map { max(0.05, $0) } ?? fallback
            }
            return .worker(path: PiperWorker.installedExecutable(environment: environment).path,
                           idleSeconds: seconds("LECTOR_NEURAL_IDLE_SECONDS", 30),
                           hangSeconds: seconds("LECTOR_NEURAL_HANG_SECONDS", 10))
        }

        /// How many times a crashed or hung worker is started again before the voice is given up.
        public static let restarts = 3
    }

    public let modelPath: String
    public let engine: Engine
    /// The espeak-ng voice that reads for it (the Piper voice's `espeak.voice`), and speaks instead when it cannot.
    public let espeakVoice: Voice
    public let mailbox: SynthesisMailbox
    public let outputRate: Int
    private let espeak: SpeechEngine
    private let onProblem: @Sendable (String?) -> Void

    private struct Job {
        var id: UInt64
        var request: SpeechRequest
        var delivery: SpeechEngine.Delivery
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var running: (id: UInt64, cancellation: SynthesisCancellation)?
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)
    private var loaded: Result<any PiperSpeaker, Error>?
    /// The voice's two files as they were when `loaded` was loaded (job thread).
    private var loadedFiles: VoiceFiles?
    private var lastUsed = Date()
    private var restarts = 0
    private var told: Set<String> = []
    /// A worker crashed, hung or would not start, or a voice that could not speak was replaced:
    /// told, and untold once it speaks (job thread).
    private var workerFault = false

    public init(modelPath: String, engine: Engine = .installed(), espeakVoice: Voice, espeak: SpeechEngine,
                mailbox: SynthesisMailbox, outputRate: Int, onProblem: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.modelPath = modelPath
        self.engine = engine
        self.espeakVoice = espeakVoice
        self.espeak = espeak
        self.mailbox = mailbox
        self.outputRate = outputRate
        self.onProblem = onProblem
        let thread = Thread { [self] in
            runJobs()
            stopped.signal()
        }
        thread.name = "lector-neural"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Queues a speech; its results arrive in `mailbox`, ending with exactly one `.finished`.
    /// `delivery` is espeak-ng's, should it have to speak instead.
    public func synthesize(id: UInt64, request: SpeechRequest, delivery: SpeechEngine.Delivery = .immediate) {
        condition.lock()
        jobs.append(Job(id: id, request: request, delivery: delivery))
        condition.unlock()
        condition.signal()
    }

    /// Drops the speech, or stops its run at once if it is running.
    public func cancel(id: UInt64) {
        mailbox.cancel(id)
        condition.lock()
        let runningNow = running?.id == id ? running?.cancellation : nil
        condition.unlock()
        runningNow?.cancel()
    }

    /// Ends the worker: what runs is cancelled, what waits is dropped.
    public func shutdown(timeout: Double = 2) {
        condition.lock()
        stopping = true
        // The running job too: its worker may wait in the mailbox's flow control.
        let cancelled = jobs.map(\.id) + (running.map { [$0.id] } ?? [])
        jobs = []
        let runningNow = running?.cancellation
        condition.unlock()
        condition.signal()
        runningNow?.cancel()
        for id in cancelled { mailbox.cancel(id) }
        _ = stopped.wait(timeout: .now() + timeout)
    }

    /// Whether the voice worker runs now (for tests and benchmarks).
    public var workerPID: pid_t? {
        condition.lock()
        defer { condition.unlock() }
        return runningWorker
    }
    private var runningWorker: pid_t?   // under `condition`, set by the worker thread

    private func runJobs() {
        defer { unload() }
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping {
                guard case .worker(_, let idleSeconds, _) = engine, case .success? = loaded else {
                    condition.wait()
                    continue
                }
                if !condition.wait(until: lastUsed.addingTimeInterval(idleSeconds)) && jobs.isEmpty && !stopping {
                    // Idle: the worker ends and its memory (runtime, model, arena) goes with it.
                    condition.unlock()
                    unload()
                    condition.lock()
                }
            }
            if stopping {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            let cancellation = SynthesisCancellation()
            running = (job.id, cancellation)
            condition.unlock()
            let outputs = speak(id: job.id, request: job.request, cancellation: cancellation)
            condition.lock()
            running = nil
            lastUsed = Date()
            condition.unlock()
            if let outputs {
                mailbox.push(outputs)
            } else {
                espeak.synthesize(id: job.id, request: job.request, voice: espeakVoice, delivery: job.delivery)
            }
        }
    }

    /// The model, loaded at the first job, again after the worker ended (idle, crashed or hung)
    /// and again when its files were replaced; a load that failed stays failed until then (job
    /// thread only).
    func voice() throws -> any PiperSpeaker {
        let files = VoiceFiles(modelPath: modelPath)
        if loaded != nil, files != loadedFiles {
            unload()
            loaded = nil
            restarts = 0
            workerFault = workerFault || !told.isEmpty   // a problem told is withdrawn once the new files speak
            told.removeAll()
        }
        if case .success(let worker as PiperWorker)? = loaded, !worker.isRunning {
            unload()
            restarts += 1
            if restarts > Engine.restarts {
                loaded = .failure(NeuralError.worker("the voice worker failed \(restarts) times; the voice is given up until the daemon restarts"))
            }
        }
        if loaded == nil {
            loadedFiles = files
            loaded = Result {
                switch engine {
                case .inProcess:
                    return try PiperVoice(modelPath: modelPath)
                case .worker(let path, _, let hangSeconds):
                    guard let path else {
                        throw NeuralError.worker("Lector's voice worker lector-piper is not installed (looked in "
                            + PiperWorker.installedExecutable().looked.joined(separator: ", ") + ")")
                    }
                    let worker = try PiperWorker(executable: path, modelPath: modelPath, hangSeconds: hangSeconds)
                    condition.lock()
                    runningWorker = worker.pid
                    condition.unlock()
                    return worker
                }
            }
        }
        return try loaded!.get()
    }

    /// Which `.onnx` and `.onnx.json` are there: device, inode, size and change time of each
    /// (nil for a missing one), so a file written over or renamed into place is seen.
    struct VoiceFiles: Equatable {
        var model: [Int]?
        var config: [Int]?

        init(modelPath: String) {
            func identity(_ path: String) -> [Int]? {
                var info = stat()
                guard stat(path, &info) == 0 else { return nil }
                return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size),
                        Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ctim.tv_sec), Int(info.st_ctim.tv_nsec)]
            }
            model = identity(modelPath)
            config = identity(modelPath + ".json")
        }
    }

    /// Ends a loaded worker (idle, replaced or shut down); a failed load is kept.
    private func unload() {
        guard case .success(let speaker)? = loaded else { return }
        (speaker as? PiperWorker)?.close()
        loaded = nil
        condition.lock()
        runningWorker = nil
        condition.unlock()
    }

    /// Phoneme scalars a run takes at least at rate 1 (shorter runs lose the sentence's melody),
    /// and at most (cut between words): the worker's memory follows its longest run's audio.
    /// Slower rates make more audio of the same phonemes, so their runs are cut shorter, down to
    /// half at rate 0.5. Measured (`lector-bench neural`, joe, three readings of a paragraph): at
    /// most 70, peaks of 192-204 MB at rates 1 and 0.5; at most 90 at every rate, 275-291 at 0.5.
    static let clauseMinimum = 45
    static let clauseMaximum = 70

    /// The runs a sentence's reading is synthesized in at `rate`.
    public static func clauses(of reading: PhonemeReading, rate: Double = 1) -> [PhonemeReading] {
        let scale = min(1, max(0.5, rate))
        let maximum = Int((Double(clauseMaximum) * scale).rounded())
        return reading.clauses(atLeast: min(clauseMinimum, maximum), atMost: maximum)
    }

    /// A job's outputs (the words and audio of all but the last clause already pushed to the
    /// mailbox, so a long sentence is heard after its first clause), or nil when espeak-ng must
    /// speak it instead (the reason told once; nothing of it was pushed).
    func speak(id: UInt64, request: SpeechRequest, cancellation: SynthesisCancellation) -> [SynthesisOutput]? {
        let done: [SynthesisOutput] = [.finished(id: id, ok: true, totalSamples: 0)]
        if mailbox.isCancelled(id) { return done }
        let voice: any PiperSpeaker
        do {
            voice = try self.voice()
        } catch {
            return fail(error)
        }
        guard let reading = espeak.phonemeReading(of: request, voice: espeakVoice) else {
            return fail("espeak-ng could not read for it with \(espeakVoice.identifier)")
        }
        let clauses = Self.clauses(of: reading, rate: request.rate).map { ($0, NeuralWordTiming.ids(for: $0, table: voice.phonemeIDs)) }
        var missing: [String] = []
        for phoneme in clauses.flatMap(\.1.mapping.missing) where !missing.contains(phoneme) { missing.append(phoneme) }
        if !missing.isEmpty { return fail("\(NeuralError.missingPhonemes(missing))") }
        let lengthScale = voice.config.lengthScale / Float(max(0.1, request.rate))
        var outputs: [SynthesisOutput] = []
        var total = 0
        var gain: Float?
        for (index, (clause, ids)) in clauses.enumerated() {
            let audio: PiperAudio
            do {
                audio = try voice.speak(ids: ids.mapping.ids, lengthScale: lengthScale, cancellation: cancellation)
            } catch {
                if cancellation.isCancelled || mailbox.isCancelled(id) { return done }
                if index == 0 { return fail(error) }
                break   // what was heard stays; the rest of this sentence is left out
            }
            var words = NeuralWordTiming.words(clause, ids, idSamples: audio.idSamples, text: request.text)
            // One gain per sentence, from its first clause: as loud as Piper's own normalization.
            let scale = gain ?? Self.gain(audio.samples, volume: request.volume)
            gain = scale
            var samples = Self.pcm(audio.samples, gain: scale)
            if audio.sampleRate != outputRate {
                samples = Self.resample(samples, from: audio.sampleRate, to: outputRate)
                for word in words.indices { words[word].sample = words[word].sample * outputRate / audio.sampleRate }
            }
            for word in words.indices { words[word].sample += total }
            total += samples.count
            outputs += words.map { .word(id: id, $0) } + [.audio(id: id, samples: samples)]
            if index < clauses.count - 1 {
                guard mailbox.push(outputs) else { return done }
                outputs = []
            }
        }
        if workerFault {   // a new worker spoke: the problem it was is over
            workerFault = false
            told.removeAll()
            onProblem(nil)
        }
        return outputs + [.finished(id: id, ok: true, totalSamples: total)]
    }

    /// Piper's normalization: the utterance's peak at full scale, at the request's volume.
    public static func gain(_ samples: [Float], volume: Double) -> Float {
        let peak = max(0.01, samples.reduce(Float(0)) { max($0, abs($1)) })
        return 32767 / peak * Float(min(1, max(0, volume)))
    }

    private func fail(_ error: Error) -> [SynthesisOutput]? {
        if case NeuralError.worker = error { workerFault = true }
        return fail("\(error)")
    }

    private func fail(_ reason: String) -> [SynthesisOutput]? {
        let name = URL(fileURLWithPath: modelPath).deletingPathExtension().lastPathComponent
        let message = "the voice \(name) cannot speak (\(reason)); espeak-ng's \(espeakVoice.name) reads instead"
        if told.insert(reason).inserted { onProblem(message) }
        return nil
    }

    /// Float to s16 at `gain` (`gain(_:volume:)`), clipped.
    public static func pcm(_ samples: [Float], gain: Float) -> [Int16] {
        samples.map { Int16(max(-32767, min(32767, ($0 * gain).rounded()))) }
    }

    /// Linear interpolation: a 16-kHz voice on the narration stream's 22,050 Hz.
    static func resample(_ samples: [Int16], from source: Int, to target: Int) -> [Int16] {
        guard source != target, !samples.isEmpty else { return samples }
        let count = samples.count * target / source
        let step = Double(source) / Double(target)
        return (0..<count).map { index in
            let position = Double(index) * step
            let lower = min(Int(position), samples.count - 1), upper = min(lower + 1, samples.count - 1)
            let fraction = position - Double(lower)
            return Int16((Double(samples[lower]) * (1 - fraction) + Double(samples[upper]) * fraction).rounded())
        }
    }
}
