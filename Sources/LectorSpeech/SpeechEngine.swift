import CEspeakNG
import CLinux
import Foundation
import LectorCore

/// espeak-ng, driven from one dedicated thread ("lector-espeak") that makes every espeak call:
/// the library keeps global state and is not thread-safe.
///
/// The event loop calls `synthesize` (non-blocking) and reads results from `mailbox`.
public final class SpeechEngine: @unchecked Sendable {
    /// Milliseconds of audio per synthesis callback: small, so the first chunk comes quickly.
    static let bufferMilliseconds: Int32 = 20

    /// How results reach the loop: each 20 ms as it comes (an announcement that must start now),
    /// or gathered into pushes of about `frames` (a book synthesized ahead: one wake-up of the
    /// loop a second of audio, not fifty), the first one at once if `firstAtOnce`.
    public enum Delivery: Sendable, Equatable {
        case immediate
        case batched(frames: Int, firstAtOnce: Bool)
    }

    public let mailbox: SynthesisMailbox
    public private(set) var sampleRate = 22050
    public private(set) var voices: [Voice] = []
    /// espeak-ng's version and the data directory it reads ("1.51", "/usr/lib/.../espeak-ng-data").
    public private(set) var version = ""
    public private(set) var dataPath = ""

    private struct Job {
        var id: UInt64
        var request: SpeechRequest
        var voice: Voice
        var delivery: Delivery
    }

    private let inbox = NSCondition()
    private var jobs: [Job] = []          // guarded by inbox
    private var running: UInt64?          // guarded by inbox
    private var stopping = false          // guarded by inbox
    private let stopped = DispatchSemaphore(value: 0)
    private var thread: Thread?
    /// The voice espeak-ng has loaded (engine thread only): loading one reads its dictionary.
    private var loadedVoice: String?

    /// Starts the thread and initializes espeak-ng on it; throws if espeak-ng cannot start.
    public init(bufferedSecondsAhead: Int = 60) throws {
        mailbox = try SynthesisMailbox(highWaterFrames: 22050 * bufferedSecondsAhead)
        let ready = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: String?
        // The thread holds the engine until `shutdown()` ends it.
        let thread = Thread { [self] in
            // Foundation's Thread.name does not reach the kernel here: name it for top -H and /proc.
            _ = lector_name_this_thread("lector-espeak")
            failure = self.initializeOnEngineThread()
            ready.signal()
            if failure == nil {
                self.runJobs()
                espeak_ng_Terminate()
            }
            self.stopped.signal()
        }
        thread.name = "lector-espeak"
        thread.stackSize = 4 << 20
        self.thread = thread
        thread.start()
        ready.wait()
        if let failure { throw LectorError(.failed, failure) }
    }

    /// Queue a speech. Results arrive in `mailbox`, ending with exactly one `.finished`.
    public func synthesize(id: UInt64, request: SpeechRequest, voice: Voice, delivery: Delivery = .immediate) {
        inbox.lock()
        jobs.append(Job(id: id, request: request, voice: voice, delivery: delivery))
        inbox.unlock()
        inbox.signal()   // after the unlock: the speech thread must not wake to a lock still taken
    }

    /// Stop `id` wherever it is: waiting, or mid-synthesis (the callback aborts at its next call).
    public func cancel(id: UInt64) {
        mailbox.cancel(id)
    }

    /// Cancels everything, ends the engine thread and frees espeak-ng; waits at most `timeout`
    /// seconds for the speech in progress to stop. Part of the daemon's teardown.
    public func shutdown(timeout: Double = 2) {
        inbox.lock()
        guard !stopping else { inbox.unlock(); return }
        stopping = true
        let cancelled = jobs.map(\.id) + (running.map { [$0] } ?? [])
        jobs = []
        inbox.signal()
        inbox.unlock()
        for id in cancelled { mailbox.cancel(id) }
        _ = stopped.wait(timeout: .now() + timeout)
    }

    // MARK: - engine thread only

    private func initializeOnEngineThread() -> String? {
        espeak_ng_InitializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        let status = espeak_ng_Initialize(&context)
        guard status == ENS_OK else {
            espeak_ng_ClearErrorContext(&context)
            return "espeak-ng failed to initialize (status \(status.rawValue)); is espeak-ng-data installed?"
        }
        guard espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, Self.bufferMilliseconds, nil) == ENS_OK else {
            return "espeak-ng failed to set up synchronous output"
        }
        sampleRate = Int(espeak_ng_GetSampleRate())
        var path: UnsafePointer<CChar>?
        version = String(cString: espeak_Info(&path))
        dataPath = path.map { String(cString: $0) } ?? "?"
        espeak_SetSynthCallback(synthCallback)
        voices = Self.listVoices()
        return nil
    }

    private func runJobs() {
        while true {
            inbox.lock()
            while jobs.isEmpty && !stopping { inbox.wait() }
            if stopping {
                inbox.unlock()
                return
            }
            let job = jobs.removeFirst()
            running = job.id
            inbox.unlock()
            run(job)
            inbox.lock()
            running = nil
            inbox.unlock()
        }
    }

    private func run(_ job: Job) {
        guard !mailbox.isCancelled(job.id) else {
            mailbox.push(.finished(id: job.id, ok: true, totalSamples: 0))
            return
        }
        if loadedVoice != job.voice.identifier {
            loadedVoice = nil
            guard espeak_SetVoiceByName(job.voice.identifier) == EE_OK else {
                mailbox.push(.finished(id: job.id, ok: false, totalSamples: 0))
                return
            }
            loadedVoice = job.voice.identifier
        }
        espeak_SetParameter(espeakRATE, job.request.espeakRate, 0)
        espeak_SetParameter(espeakPITCH, job.request.espeakPitch, 0)
        espeak_SetParameter(espeakVOLUME, job.request.espeakVolume, 0)

        let synthesis = Synthesis(id: job.id, mailbox: mailbox, sampleRate: sampleRate, text: job.request.text,
                                  delivery: job.delivery)
        currentSynthesis = synthesis
        defer { currentSynthesis = nil }
        let result = job.request.text.withCString { text in
            espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
                         UInt32(espeakCHARS_UTF8) | (job.request.ssml ? UInt32(espeakSSML) : 0), nil, nil)
        }
        // EE_OK also when the callback aborted; a cancelled speech is not a failure.
        let ok = result == EE_OK || mailbox.isCancelled(job.id)
        synthesis.pending.append(.finished(id: job.id, ok: ok, totalSamples: synthesis.totalSamples))
        synthesis.flush()
    }

    private static func listVoices() -> [Voice] {
        guard var cursor = espeak_ListVoices(nil) else { return [] }
        var result: [Voice] = []
        while let voice = cursor.pointee {
            result.append(Voice(
                name: voice.pointee.name.map { String(cString: $0) } ?? "",
                identifier: voice.pointee.identifier.map { String(cString: $0) } ?? "",
                languages: parseLanguages(voice.pointee.languages),
                gender: voice.pointee.gender == 1 ? .male : voice.pointee.gender == 2 ? .female : .unknown))
            cursor += 1
        }
        return result
    }

    /// espeak's `languages`: repeated [priority byte][NUL-terminated tag], ended by a 0 byte.
    private static func parseLanguages(_ raw: UnsafePointer<CChar>?) -> [Voice.Language] {
        guard var p = raw else { return [] }
        var result: [Voice.Language] = []
        while p.pointee != 0 {
            let priority = Int(UInt8(bitPattern: p.pointee))
            p += 1
            let tag = String(cString: p)
            result.append(.init(tag: tag, priority: priority))
            p += tag.utf8.count + 1
        }
        return result
    }
}

/// The speech being synthesized right now; touched only on the engine thread.
private final class Synthesis {
    let id: UInt64
    let mailbox: SynthesisMailbox
    let sampleRate: Int
    let textScalarCount: Int
    var totalSamples = 0
    /// espeak-ng misplaces a word now and then; words are checked against the text.
    var repair: WordRangeRepair
    let delivery: SpeechEngine.Delivery
    /// Outputs not pushed yet (batched delivery), in order; `pendingFrames` of audio among them.
    var pending: [SynthesisOutput] = []
    var pendingFrames = 0
    var pushedAudio = false

    init(id: UInt64, mailbox: SynthesisMailbox, sampleRate: Int, text: String, delivery: SpeechEngine.Delivery) {
        self.id = id
        self.mailbox = mailbox
        self.sampleRate = sampleRate
        self.delivery = delivery
        textScalarCount = text.unicodeScalars.count
        repair = WordRangeRepair(text: text)
    }

    /// Queues one output; pushes what is pending when the delivery says so. False: cancelled.
    func add(_ output: SynthesisOutput) -> Bool {
        pending.append(output)
        guard case .audio(_, let samples) = output else {
            return delivery == .immediate ? flush() : true
        }
        pendingFrames += samples.count
        switch delivery {
        case .immediate:
            return flush()
        case .batched(let frames, let firstAtOnce):
            if pendingFrames >= frames || (firstAtOnce && !pushedAudio) { return flush() }
            return !mailbox.isCancelled(id)
        }
    }

    /// Pushes everything pending, audio merged into one chunk. False: cancelled.
    @discardableResult
    func flush() -> Bool {
        guard !pending.isEmpty else { return true }
        var outputs: [SynthesisOutput] = []
        var audio: [Int16] = []
        audio.reserveCapacity(pendingFrames)
        for output in pending {
            if case .audio(_, let samples) = output {
                audio.append(contentsOf: samples)
            } else {
                outputs.append(output)
            }
        }
        // Words are placed by their sample offset, so they may go before the audio they belong to.
        if !audio.isEmpty {
            let audioOutput = SynthesisOutput.audio(id: id, samples: audio)
            if let finish = outputs.firstIndex(where: { if case .finished = $0 { return true } else { return false } }) {
                outputs.insert(audioOutput, at: finish)
            } else {
                outputs.append(audioOutput)
            }
            pushedAudio = true
        }
        pending = []
        pendingFrames = 0
        return mailbox.push(outputs)
    }
}

/// espeak's callback has no context pointer of its own; there is one engine thread, so one slot.
nonisolated(unsafe) private var currentSynthesis: Synthesis?

private func synthCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32,
                           _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    guard let synthesis = currentSynthesis else { return 1 }
    if synthesis.mailbox.isCancelled(synthesis.id) { return 1 }
    if var event = events {
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            if event.pointee.type == espeakEVENT_WORD,
               var word = WordBoundary(textPosition: event.pointee.text_position,
                                       length: event.pointee.length,
                                       audioPositionMilliseconds: event.pointee.audio_position,
                                       sampleRate: synthesis.sampleRate,
                                       textScalarCount: synthesis.textScalarCount),
               let range = synthesis.repair.repair(start: Int(word.start), length: Int(word.length)) {
                word.start = UInt32(range.lowerBound)
                word.length = UInt32(range.count)
                _ = synthesis.add(.word(id: synthesis.id, word))
            }
            event += 1
        }
    }
    if let wav, count > 0 {
        synthesis.totalSamples += Int(count)
        let samples = Array(UnsafeBufferPointer(start: wav, count: Int(count)))
        if !synthesis.add(.audio(id: synthesis.id, samples: samples)) { return 1 }
    }
    return 0
}
