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
    /// Whether `version` is one whose crashes `EspeakInputGuard` avoids (before 1.52).
    private var guardsInput = true
    public private(set) var dataPath = ""

    private struct Job {
        var id: UInt64
        var request: SpeechRequest
        var voice: Voice
        var delivery: Delivery = .immediate
        /// Set for `phonemeTrace(of:voice:ipa:)`: the phoneme trace is kept, the sound dropped.
        var trace: TraceResult?
        /// The trace in IPA rather than espeak-ng's mnemonics.
        var traceIPA = false
        /// Set for `phonemeReading(of:voice:)`: phonemes with their words' offsets, no sound.
        var reading: ReadingResult?
    }

    /// Where the engine thread leaves a phoneme reading for the thread waiting on it.
    private final class ReadingResult: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var reading: PhonemeReading?
    }

    /// Where the engine thread leaves a phoneme trace for the thread waiting on it.
    private final class TraceResult: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var text: String?
    }

    /// Text to turn into phonemes with a voice (`phonemesInBackground(of:voice:completion:)`).
    private struct PhonemeJob {
        var voice: Voice
        var texts: [String]
        var readings: [String] = []
        var wanted: @Sendable () -> Bool
        var completion: @Sendable ([String]?) -> Void
        /// `speeches` when it was queued, and when (uptime nanoseconds).
        var speechesBefore: Int
        var queuedAt: UInt64
    }

    /// A phoneme job waits for a speech to run first (the first audio of a book just opened is
    /// queued a moment after the check), or for this long with none.
    static let phonemeIdleWaitNanoseconds: UInt64 = 200_000_000

    /// How long phoneme queries run in one go before a speech that waits is let in: what
    /// background work can add to a speech's start (a word takes some 20 to 100 µs).
    static let phonemeBatchNanoseconds: UInt64 = 8_000_000

    private let inbox = NSCondition()
    private var jobs: [Job] = []          // guarded by inbox
    private var phonemeJobs: [PhonemeJob] = []   // guarded by inbox; see `runJobs`
    private var phonemeTurn = false               // guarded by inbox: a speech ran since the last stretch
    private var speeches = 0                      // guarded by inbox: speeches run so far
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

    /// What espeak-ng says for `request.text` in `voice`, as its phoneme mnemonics: its phoneme
    /// trace (what `espeak-ng -x` prints), one line per clause, from a synthesis whose sound is
    /// dropped. `request.phonemeInput` reads `[[…]]` as phonemes, as narration does. Blocks the
    /// calling thread until done (lector-tools' `lector phonemes`; never the event loop); nil when
    /// the voice cannot be loaded or the engine stops.
    public func phonemeTrace(of request: SpeechRequest, voice: Voice, ipa: Bool = false) -> String? {
        let result = TraceResult()
        inbox.lock()
        guard !stopping else {
            inbox.unlock()
            return nil
        }
        jobs.append(Job(id: 0, request: request, voice: voice, trace: result, traceIPA: ipa))
        inbox.signal()
        inbox.unlock()
        result.done.wait()
        return result.text
    }

    /// What a neural voice needs from espeak-ng for `text` in `voice` (`PhonemeReading`): the
    /// IPA phonemes with stress marks and word spaces, clause by clause, and the word each was
    /// said for, from a synthesis whose sound is dropped. The same text handling as the espeak-ng
    /// voice (numbers, abbreviations, `[[…]]` phonemes with `phonemeInput`). Blocks the calling
    /// thread (a neural voice's worker; never the event loop); nil when the voice cannot be
    /// loaded or the engine stops.
    public func phonemeReading(of request: SpeechRequest, voice: Voice) -> PhonemeReading? {
        let result = ReadingResult()
        inbox.lock()
        guard !stopping else {
            inbox.unlock()
            return nil
        }
        jobs.append(Job(id: 0, request: request, voice: voice, reading: result))
        inbox.signal()
        inbox.unlock()
        result.done.wait()
        return result.reading
    }

    /// espeak-ng's phonemes for each of `texts` read by `voice` (`espeak_TextToPhonemes`, its own
    /// mnemonics with language switches as "(en)"), handed to `completion` on the engine thread
    /// (nil if the voice cannot be loaded). Background work, `phonemeBatchNanoseconds` at a
    /// time: once a speech has run since it was queued (or none came for
    /// `phonemeIdleWaitNanoseconds`), while no speech waits and for one stretch after each
    /// speech, so that it never holds up the first audio of a book just opened, holds up other
    /// speech by at most that (and a voice's loading), and still ends while a book plays.
    /// `wanted` is asked before each stretch: once false, the job ends (completion gets nil).
    /// `afterSpeeches`: wait for a speech after that many (`speechesRun` when the work was
    /// decided; default: now).
    public func phonemesInBackground(of texts: [String], voice: Voice, afterSpeeches: Int? = nil,
                         wanted: @escaping @Sendable () -> Bool = { true },
                         completion: @escaping @Sendable ([String]?) -> Void) {
        inbox.lock()
        phonemeJobs.append(PhonemeJob(voice: voice, texts: texts, wanted: wanted, completion: completion,
                                      speechesBefore: afterSpeeches ?? speeches,
                                      queuedAt: DispatchTime.now().uptimeNanoseconds))
        inbox.signal()
        inbox.unlock()
    }

    /// Speeches synthesized so far (what `phonemes(afterSpeeches:)` counts).
    public var speechesRun: Int {
        inbox.lock()
        defer { inbox.unlock() }
        return speeches
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
        for job in jobs {   // a phoneme trace or reading waiting gets nil
            job.trace?.done.signal()
            job.reading?.done.signal()
        }
        jobs = []
        phonemeJobs = []
        inbox.signal()
        inbox.unlock()
        for id in cancelled { mailbox.cancel(id) }
        _ = stopped.wait(timeout: .now() + timeout)
    }

    // MARK: - engine thread only

    private func initializeOnEngineThread() -> String? {
        // The classic call: the only one that turns on phoneme events (in IPA) for
        // `phonemeReading`; synthesis ignores them. (Calling espeak_ng_Initialize as well made
        // espeak_ng_Terminate hang at shutdown.)
        if let failure = EspeakLibrary.load() { return failure }
        let options = espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_PHONEME_IPA | espeakINITIALIZE_DONT_EXIT
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, Self.bufferMilliseconds, nil, Int32(options))
        guard rate > 0, espeak_ListVoices(nil)?.pointee != nil else {
            return "espeak-ng failed to initialize (\(rate)). Fix: apt install espeak-ng-data (or set ESPEAK_DATA_PATH to its directory)"
        }
        sampleRate = Int(espeak_ng_GetSampleRate())
        var path: UnsafePointer<CChar>?
        version = String(cString: espeak_Info(&path))
        guardsInput = EspeakInputGuard.isNeeded(version: version)
        dataPath = path.map { String(cString: $0) } ?? "?"
        espeak_SetSynthCallback(synthCallback)
        voices = Self.listVoices()
        return nil
    }

    private func runJobs() {
        while true {
            inbox.lock()
            while jobs.isEmpty && !phonemeJobReady() && !stopping {
                if let first = phonemeJobs.first {
                    let due = first.queuedAt + Self.phonemeIdleWaitNanoseconds
                    let now = DispatchTime.now().uptimeNanoseconds
                    _ = inbox.wait(until: Date(timeIntervalSinceNow: Double(due > now ? due - now : 0) / 1e9))
                } else {
                    inbox.wait()
                }
            }
            if stopping {
                inbox.unlock()
                return
            }
            // Background phoneme work: whenever no speech waits, and one stretch after each
            // speech even if another waits (narration keeps a speech queued while it buffers
            // ahead, and would otherwise hold it off for a whole chapter).
            if phonemeJobReady() && (jobs.isEmpty || phonemeTurn) {
                phonemeTurn = false
                inbox.unlock()
                runPhonemeStretch()
                continue
            }
            let job = jobs.removeFirst()
            running = job.id
            inbox.unlock()
            run(job)
            inbox.lock()
            running = nil
            phonemeTurn = true
            speeches += 1
            inbox.unlock()
        }
    }

    private func run(_ job: Job) {
        if let trace = job.trace {
            trace.text = runTrace(job)
            trace.done.signal()
            return
        }
        if let reading = job.reading {
            reading.reading = runReading(job)
            reading.done.signal()
            return
        }
        guard !mailbox.isCancelled(job.id) else {
            mailbox.push(.finished(id: job.id, ok: true, totalSamples: 0))
            return
        }
        guard loadVoice(job.voice) else {
            mailbox.push(.finished(id: job.id, ok: false, totalSamples: 0))
            return
        }
        espeak_SetParameter(espeakRATE, job.request.espeakRate, 0)
        espeak_SetParameter(espeakPITCH, job.request.espeakPitch, 0)
        espeak_SetParameter(espeakVOLUME, job.request.espeakVolume, 0)

        let input = guarded(job.request.text, voice: job.voice, ssml: job.request.ssml)
        let synthesis = Synthesis(id: job.id, mailbox: mailbox, sampleRate: sampleRate, text: input,
                                  delivery: job.delivery)
        currentSynthesis = synthesis
        defer { currentSynthesis = nil }
        let result = input.withCString { text in
            espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
                         UInt32(espeakCHARS_UTF8) | (job.request.ssml ? UInt32(espeakSSML) : 0)
                            | (job.request.phonemeInput ? UInt32(espeakPHONEMES) : 0), nil, nil)
        }
        // EE_OK also when the callback aborted; a cancelled speech is not a failure.
        let ok = result == EE_OK || mailbox.isCancelled(job.id)
        synthesis.pending.append(.finished(id: job.id, ok: ok, totalSamples: synthesis.totalSamples))
        synthesis.flush()
    }

    private func loadVoice(_ voice: Voice) -> Bool {
        if loadedVoice == voice.identifier { return true }
        loadedVoice = nil
        guard espeak_SetVoiceByName(voice.identifier) == EE_OK else { return false }
        loadedVoice = voice.identifier
        return true
    }

    /// Every text espeak-ng reads goes through here: 1.51 crashes on some characters, which
    /// depend on the voice (`EspeakInputGuard`); each becomes a space, so offsets hold. SSML can
    /// change the language itself: it is guarded for every voice.
    private func guarded(_ text: String, voice: Voice, ssml: Bool = false) -> String {
        guardsInput ? EspeakInputGuard.apply(text, voice: ssml ? nil : voice.identifier) : text
    }

    private func runTrace(_ job: Job) -> String? {
        guard loadVoice(job.voice) else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let file = open_memstream(&buffer, &size) else { return nil }
        espeak_SetPhonemeTrace(job.traceIPA ? espeakPHONEMES_IPA : espeakPHONEMES_SHOW, file)
        tracing = true
        _ = guarded(job.request.text, voice: job.voice).withCString { text in
            espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
                         UInt32(espeakCHARS_UTF8) | (job.request.phonemeInput ? UInt32(espeakPHONEMES) : 0), nil, nil)
        }
        tracing = false
        espeak_SetPhonemeTrace(0, nil)
        fclose(file)
        defer { free(buffer) }
        return buffer.map { String(cString: $0) } ?? ""
    }

    private func runReading(_ job: Job) -> PhonemeReading? {
        guard loadVoice(job.voice) else { return nil }
        let collector = PhonemeCollector()
        currentCollector = collector
        let input = guarded(job.request.text, voice: job.voice)
        _ = input.withCString { text in
            espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
                         UInt32(espeakCHARS_UTF8) | (job.request.phonemeInput ? UInt32(espeakPHONEMES) : 0), nil, nil)
        }
        currentCollector = nil
        let phonemes = Self.phonemes(input, mode: Int32(espeakPHONEMES_IPA))
        return PhonemeReading(phonemes: phonemes, events: collector.events).punctuated(by: job.request.text)
    }

    /// The first phoneme job may run: a speech ran since it was queued, or none came for
    /// `phonemeIdleWaitNanoseconds`. (inbox held)
    private func phonemeJobReady() -> Bool {
        guard let first = phonemeJobs.first else { return false }
        return speeches > first.speechesBefore
            || DispatchTime.now().uptimeNanoseconds >= first.queuedAt + Self.phonemeIdleWaitNanoseconds
    }

    /// Phoneme jobs, one after the other (a finished one may queue the next: a probe's next
    /// voice), for up to `phonemeBatchNanoseconds`; an unfinished one goes back to the front.
    private func runPhonemeStretch() {
        let deadline = DispatchTime.now().uptimeNanoseconds + Self.phonemeBatchNanoseconds
        while DispatchTime.now().uptimeNanoseconds < deadline {
            inbox.lock()
            guard !phonemeJobs.isEmpty, !stopping else { inbox.unlock(); return }
            // A probe's next voice, queued by a completion in this stretch, goes on at once.
            var job = phonemeJobs.removeFirst()
            inbox.unlock()
            if runBatch(&job, until: deadline) {
                job.completion(job.readings.count == job.texts.count ? job.readings : nil)
            } else {
                inbox.lock()
                phonemeJobs.insert(job, at: 0)
                inbox.unlock()
                return
            }
        }
    }

    /// More of the job's texts, until `deadline`; true when it is done (or failed).
    private func runBatch(_ job: inout PhonemeJob, until deadline: UInt64) -> Bool {
        guard job.wanted() else { return true }
        guard loadVoice(job.voice) else { return true }
        while job.readings.count < job.texts.count {
            job.readings.append(Self.phonemes(guarded(job.texts[job.readings.count], voice: job.voice)))
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        return job.readings.count == job.texts.count
    }

    /// One text's phonemes, clause by clause, joined by spaces: espeak-ng's mnemonics, or IPA
    /// with `espeakPHONEMES_IPA`.
    private static func phonemes(_ text: String, mode: Int32 = 0) -> String {
        var parts: [String] = []
        text.withCString { start in
            var cursor: UnsafeRawPointer? = UnsafeRawPointer(start)
            var guardCount = 0
            while let position = cursor, guardCount < 10_000 {
                guardCount += 1
                var next: UnsafeRawPointer? = position
                guard let result = espeak_TextToPhonemes(&next, Int32(espeakCHARS_UTF8), mode) else { break }
                let phonemes = String(cString: result)
                if !phonemes.isEmpty { parts.append(phonemes) }
                if next == position { break }
                cursor = next
            }
        }
        return parts.joined(separator: " ")
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
/// A phoneme trace is being made (engine thread only): the sound is dropped.
nonisolated(unsafe) private var tracing = false

/// Phoneme events of a `phonemeReading` (engine thread only); the sound is dropped.
private final class PhonemeCollector {
    var events: [PhonemeReading.Event] = []

    func collect(_ events: UnsafeMutablePointer<espeak_EVENT>) {
        var event = events
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            if event.pointee.type == espeakEVENT_PHONEME, event.pointee.text_position > 0 {
                // id.string: up to 8 bytes of UTF-8, NUL-terminated unless it fills them.
                let name = withUnsafeBytes(of: event.pointee.id.string) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                self.events.append((Int(event.pointee.text_position) - 1, name))
            }
            event += 1
        }
    }
}
nonisolated(unsafe) private var currentCollector: PhonemeCollector?

private func synthCallback(_ wav: UnsafeMutablePointer<Int16>?, _ count: Int32,
                           _ events: UnsafeMutablePointer<espeak_EVENT>?) -> Int32 {
    if tracing { return 0 }
    if let collector = currentCollector {
        if let events { collector.collect(events) }
        return 0
    }
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
