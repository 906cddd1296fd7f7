import Foundation
import LectorCore
import LectorNeural
import LectorSpeech

/// A Piper voice speaking, on a worker thread of its own ("lector-neural"): for each job it asks
/// espeak-ng for the phoneme reading (`SpeechEngine.phonemeReading`: the same text handling as the
/// espeak-ng voice), runs the model, turns the audio into s16 at the voice's rate and puts every
/// word on its first sample (`NeuralWordTiming`), then pushes the words, the audio and `finished`
/// to `mailbox`, as espeak-ng's thread does. `cancel` stops a run at once.
///
///     let neural = NeuralSynthesizer(voice: joe, espeakVoice: enUS, espeak: engine, mailbox: engine.mailbox)
///     neural.synthesize(id: 7, request: try SpeechRequest(text: "Call me Ishmael."))
///     // mailbox: .word(7, "Call" at 0), …, .audio(7, …), .finished(7, ok: true, …)
public final class NeuralSynthesizer: @unchecked Sendable {   // queue state under `condition`
    public let voice: PiperVoice
    /// The espeak-ng voice that reads for it (the Piper voice's `espeak.voice`).
    public let espeakVoice: Voice
    public let mailbox: SynthesisMailbox
    private let espeak: SpeechEngine

    private struct Job {
        var id: UInt64
        var request: SpeechRequest
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var running: (id: UInt64, cancellation: SynthesisCancellation)?
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)

    public init(voice: PiperVoice, espeakVoice: Voice, espeak: SpeechEngine, mailbox: SynthesisMailbox) {
        self.voice = voice
        self.espeakVoice = espeakVoice
        self.espeak = espeak
        self.mailbox = mailbox
        let thread = Thread { [self] in
            runJobs()
            stopped.signal()
        }
        thread.name = "lector-neural"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Queues a speech; its results arrive in `mailbox`, ending with exactly one `.finished`.
    public func synthesize(id: UInt64, request: SpeechRequest) {
        condition.lock()
        jobs.append(Job(id: id, request: request))
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
        let cancelled = jobs.map(\.id)
        jobs = []
        let runningNow = running?.cancellation
        condition.unlock()
        condition.signal()
        runningNow?.cancel()
        for id in cancelled { mailbox.cancel(id) }
        _ = stopped.wait(timeout: .now() + timeout)
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
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
            condition.unlock()
            mailbox.push(outputs)
        }
    }

    /// A job's outputs; on any failure only `.finished(ok: false)` (narration then goes on with
    /// espeak-ng, which is its caller's decision).
    func speak(id: UInt64, request: SpeechRequest, cancellation: SynthesisCancellation) -> [SynthesisOutput] {
        let failed: [SynthesisOutput] = [.finished(id: id, ok: mailbox.isCancelled(id), totalSamples: 0)]
        guard !mailbox.isCancelled(id), let reading = espeak.phonemeReading(of: request, voice: espeakVoice) else {
            return failed
        }
        let ids = NeuralWordTiming.ids(for: reading, table: voice.phonemeIDs)
        guard ids.mapping.missing.isEmpty else { return failed }
        let lengthScale = voice.config.lengthScale / Float(max(0.1, request.rate))
        guard let audio = try? voice.synthesize(ids: ids.mapping.ids, lengthScale: lengthScale, cancellation: cancellation)
        else { return failed }
        let words = NeuralWordTiming.words(reading, ids, idSamples: audio.idSamples, text: request.text)
        let samples = Self.pcm(audio.samples, volume: request.volume)
        return words.map { .word(id: id, $0) } + [.audio(id: id, samples: samples),
                                                  .finished(id: id, ok: true, totalSamples: samples.count)]
    }

    /// Float to s16, peak-normalized per utterance as Piper does, at the request's volume.
    static func pcm(_ samples: [Float], volume: Double = 1) -> [Int16] {
        let peak = max(0.01, samples.reduce(Float(0)) { max($0, abs($1)) })
        let scale = 32767 / peak * Float(min(1, max(0, volume)))
        return samples.map { Int16(max(-32767, min(32767, ($0 * scale).rounded()))) }
    }
}

