import LectorAudio
import LectorConfig
import LectorCore
import LectorLoop
import LectorSpeech

/// Announcements (io.github.lector.Lector1): the SSIP priority queue and each sender's allowance,
/// the one speech being spoken on its own stream (`media.role=event`), and its signals, sent
/// when the sound server's playback clock reaches the frame they belong to.
///
/// ```swift
/// let id = try announcer.speak(text: "Build finished", options: [:], sender: ":1.42") { reply(id) }
/// announcer.cancel(id: id)   // SpeechFinished(id, "cancelled")
/// ```
@MainActor
final class Announcer {
    enum Signal {
        case started(UInt64)
        case range(UInt64, start: UInt32, length: UInt32)
        case finished(UInt64, FinishReason)
    }

    /// The sender overheard notifications are queued under (one share of the queue for all).
    static let notificationSender = "org.freedesktop.Notifications"

    // Set in the daemon's one wiring block (LectorService+Wiring), like every component's `on…`:
    // what it reports, and what it asks of the audio policy and the narrator. Unwired, nothing starts.
    /// SpeechStarted, SpeakingRange and SpeechFinished, at the moment they are heard.
    var onHeard: (Signal) -> Void = { _ in }
    /// Whether a speech of this priority may start now (a call holds all but `important` ones).
    var mayStart: ((SpeechPriority) -> Bool)?
    /// False if the speech must not start (its sink is muted); raises the sink for ensure-audible.
    var prepareAudibility: (SpeechRequest) -> Bool = { _ in true }
    /// An announcement takes the speaker: narration holds.
    var willSpeak: () -> Void = {}
    /// `current` changed (ducking follows it).
    var onSpeakingChanged: () -> Void = {}
    /// The announcement stream failed: open a new one a moment later.
    var onStreamFailed: () -> Void = {}
    /// Rate, pitch, volume and voices the caller did not choose.
    var configuration = Configuration() {
        didSet { if configuration.pronunciation != oldValue.pronunciation { pronouncers = [:] } }
    }
    /// config.toml's `[pronunciation]` lexicons for each language spoken, made when first needed.
    private var pronouncers: [String: Pronouncer] = [:]
    private(set) var current: ActiveSpeech?
    /// Our announcement stream, once the sound server is there.
    private(set) var stream: PlaybackStream? {
        didSet { channel.clock = stream }
    }

    private let engine: SpeechEngine
    private let catalog: VoiceCatalog
    private let loop: EventLoop
    private let allocateJob: () -> UInt64
    /// SSIP priority rules; bounded, with a per-sender share so one client cannot fill it.
    private var queue = AnnouncementQueue<SpeechRequest>(capacity: 256, maxWaitingPerSender: 32)
    /// Per-sender allowance: a burst of 20, then 10 a second; `important` has its own bucket.
    private var rateLimiter = SenderRateLimiter(burst: 20, perSecond: 10, maxSenders: 256,
                                                importantBurst: 20, importantPerSecond: 10)
    /// Signals wait there for the frame they belong to be heard.
    private let channel: SpeakingChannel<HeardEvent>
    private var nextSpeechID: UInt64 = 1

    init(loop: EventLoop, engine: SpeechEngine, catalog: VoiceCatalog, allocateJob: @escaping () -> UInt64) throws {
        self.loop = loop
        self.engine = engine
        self.catalog = catalog
        self.allocateJob = allocateJob
        channel = try SpeakingChannel(loop: loop)
        channel.onHeard = { [weak self] events in
            for event in events { self?.announce(event) }
        }
    }

    /// Teardown: no timer fires, the stream is let go (its sound server frees it).
    func close() {
        channel.close()
        stream = nil
    }

    // MARK: - requests

    /// Queues a speech; `accepted` gets its id first (the caller replies there), so the id is
    /// known before any signal about it. The allowance is checked before the text, `ready` (the
    /// sound server's state) after it.
    func speak(text: String, options: [String: OptionValue], sender: String,
               ready: () throws -> Void = {}, accepted: (UInt64) -> Void) throws {
        let important = options[SpeakOption.priority.rawValue] == .string(SpeechPriority.important.rawValue)
        guard rateLimiter.admit(sender: sender, at: loop.now, important: important) else {
            throw Self.error(AnnouncementRefusal.rateLimited(sender: sender))
        }
        var request = try SpeechRequest(text: text, options: options)
        applyDefaults(to: &request, options: options)
        _ = try catalog.resolve(language: request.language, voice: request.voice)
        try ready()
        let id = nextSpeechID
        let admission: QueueAdmission
        do {
            admission = try queue.enqueue(request, id: id, priority: request.priority, sender: sender,
                                          speaking: current?.priority)
        } catch {
            throw Self.error(error)
        }
        nextSpeechID += 1
        accepted(id)
        admitted(admission, id: id)
    }

    /// An overheard notification, at `notification` priority: never refused loudly (the queue
    /// drops what it must). Returns its id if it was queued.
    @discardableResult
    func announceNotification(_ text: String) -> UInt64? {
        guard var request = try? SpeechRequest(text: String(text.prefix(2000)),
                                               options: [SpeakOption.priority.rawValue: .string(SpeechPriority.notification.rawValue)])
        else { return nil }
        applyDefaults(to: &request, options: [:])
        let id = nextSpeechID
        guard let admission = try? queue.enqueue(request, id: id, priority: .notification, sender: Self.notificationSender,
                                                 speaking: current?.priority) else { return nil }
        nextSpeechID += 1
        admitted(admission, id: id)
        return id
    }

    /// A waiting or speaking id ends with `cancelled`; an unknown one is `NoSuchSpeech`.
    func cancel(id: UInt64) throws {
        if queue.remove(id: id) != nil {
            emitFinished(id, .cancelled)
        } else if current?.id == id {
            endCurrent(.cancelled)
            startNext()
        } else {
            throw LectorError(.noSuchSpeech, "no speech \(id) is waiting or speaking (it may have finished)")
        }
    }

    /// (id, priority, "speaking" | "waiting", text) in speaking order.
    var listing: [(id: UInt64, priority: String, state: String, text: String)] {
        var entries: [(id: UInt64, priority: String, state: String, text: String)] = []
        if let current { entries.append((current.id, current.priority.rawValue, "speaking", current.request.text)) }
        for waiting in queue.waiting {
            entries.append((waiting.id, waiting.priority.rawValue, "waiting", queue.job(id: waiting.id)?.text ?? ""))
        }
        return entries
    }

    /// Current first, then the queue in order; each ends with `reason`.
    func cancelAll(reason: FinishReason) {
        endCurrent(reason)
        for id in queue.removeAll() { emitFinished(id, reason) }
        onSpeakingChanged()
    }

    static func error(_ refusal: AnnouncementRefusal) -> LectorError {
        LectorError(LectorError.Kind(rawValue: refusal.errorName) ?? .failed, refusal.message)
    }

    /// Options the caller did not give come from the configuration: rate, pitch, volume, and the
    /// voice for the language when it is espeak-ng's (`[voices]` may name a neural voice for
    /// books; announcements keep espeak-ng's ~10-ms first audio and its voice for the language).
    private func applyDefaults(to request: inout SpeechRequest, options: [String: OptionValue]) {
        if options[SpeakOption.rate.rawValue] == nil { request.rate = configuration.speech.rate }
        if options[SpeakOption.pitch.rawValue] == nil { request.pitch = configuration.speech.pitch }
        if options[SpeakOption.volume.rawValue] == nil { request.volume = configuration.speech.volume }
        if request.voice == nil, let language = request.language, let voice = configuration.voice(forLanguage: language),
           (try? catalog.resolve(language: language, voice: voice)) != nil {
            request.voice = voice
        }
    }

    /// Carries out what the queue decided for a new speech: what it removed, whether it was
    /// dropped at once, whether the speech being spoken must stop.
    private func admitted(_ admission: QueueAdmission, id: UInt64) {
        for removal in admission.removed { emitFinished(removal.id, FinishReason(removal.reason)) }
        if !admission.accepted { emitFinished(id, .dropped) }
        if let reason = admission.interruptCurrent { endCurrent(FinishReason(reason)) }
        startNext()
    }

    // MARK: - speaking

    /// Starts the next queued speech if nothing is speaking, the stream is there and the policy
    /// lets it (a call holds all but important ones).
    func startNext() {
        defer { onSpeakingChanged() }
        guard current == nil, let stream, stream.state == .ready, let mayStart,
              let (id, request, priority) = queue.next(where: mayStart) else { return }
        guard prepareAudibility(request) else {
            Journal.log(.info, "speech \(id) not spoken: the sink is muted", fields: ["LECTOR_SPEECH_ID": String(id)])
            emitFinished(id, .muted)
            return startNext()
        }
        let voice: Voice
        do {
            voice = try catalog.resolve(language: request.language, voice: request.voice)
        } catch {
            emitFinished(id, .failed)
            return startNext()
        }
        let speech = ActiveSpeech(id: id, job: allocateJob(), request: request, priority: priority,
                                  pronouncer: pronouncer(for: request.language ?? voice.primaryLanguage))
        current = speech
        willSpeak()   // narration pauses (not ducks) and frees the speech thread
        var spoken = request
        spoken.text = speech.spoken.text
        spoken.phonemeInput = speech.usesPhonemes
        engine.synthesize(id: speech.job, request: spoken, voice: voice)
    }

    /// The listener's lexicons for an announcement in `language`; nil when there are none.
    private func pronouncer(for language: String) -> Pronouncer? {
        guard !configuration.pronunciation.isEmpty else { return nil }
        if let known = pronouncers[language] { return known }
        let made = Pronouncer(listener: configuration.pronunciation, language: language.isEmpty ? nil : language)
        pronouncers[language] = made
        return made
    }

    /// Ends the current speech now: silence, forget its pending events, tell the bus why.
    func endCurrent(_ reason: FinishReason) {
        guard let speech = current else { return }
        current = nil
        if !speech.synthesisDone { engine.cancel(id: speech.job) }
        stream?.stop()
        channel.removeAll { $0.id == speech.id }
        emitFinished(speech.id, reason)
        if reason != .cancelled {
            Journal.log(.warning, "speech \(speech.id) ended: \(reason.rawValue)",
                        fields: ["LECTOR_SPEECH_ID": String(speech.id)])
        }
    }

    /// One synthesis result that is not the narrator's.
    func handle(_ output: SynthesisOutput) {
        guard var speech = current, speech.job == output.id else {
            // An abandoned job: release its audio and forget it once it has finished.
            if case .audio(_, let samples) = output { engine.mailbox.consumed(frames: samples.count) }
            if case .finished(let job, _, _) = output { engine.mailbox.forget(job) }
            return
        }
        switch output {
        case .audio(_, let samples):
            accept(samples, for: &speech)
        case .word(_, let word):
            if let base = speech.baseFrame {
                channel.add(speech.range(of: word), at: speech.frame(of: word, base: base))
            } else {
                speech.earlyWords.append(word)
            }
        case .finished(let job, let ok, _):
            engine.mailbox.forget(job)
            speech.synthesisDone = true
            guard ok else {
                current = speech
                endCurrent(.failed)
                startNext()
                return
            }
            if speech.baseFrame == nil {
                // Nothing audible (only punctuation, say): done at once.
                current = nil
                onHeard(.started(speech.id))
                emitFinished(speech.id, .done)
                startNext()
                return
            }
            channel.add(.finished(id: speech.id), at: stream?.endFrame ?? 0)
        }
        current = speech
    }

    /// Trims leading silence, fixes the speech's place on the stream timeline, plays the rest.
    private func accept(_ samples: [Int16], for speech: inout ActiveSpeech) {
        guard let stream else {
            engine.mailbox.consumed(frames: samples.count)
            return
        }
        let kept = speech.trimmer.trim(samples)
        engine.mailbox.consumed(frames: samples.count - kept.count)
        if kept.isEmpty { return }
        if speech.baseFrame == nil {
            let base = stream.endFrame
            speech.baseFrame = base
            channel.add(.started(id: speech.id), at: base)
            for word in speech.earlyWords {
                channel.add(speech.range(of: word), at: speech.frame(of: word, base: base))
            }
            speech.earlyWords = []
        }
        stream.enqueue(Array(kept))
    }

    // MARK: - hearing

    /// Arms the timer for the next event, from the interpolated playback position.
    func rescheduleMarkers() {
        channel.reschedule()
    }

    private func announce(_ event: HeardEvent) {
        switch event {
        case .started(let id):
            onHeard(.started(id))
        case .range(let id, let start, let length):
            onHeard(.range(id, start: start, length: length))
        case .finished(let id):
            guard current?.id == id else { return }
            current = nil
            emitFinished(id, .done)
            stream?.idle()
            startNext()
        }
    }

    private func emitFinished(_ id: UInt64, _ reason: FinishReason) {
        onHeard(.finished(id, reason))
    }

    // MARK: - the stream

    /// The server is ready: our own stream, with our own saved-volume key.
    func openStream(on soundServer: SoundServer, properties: [String: String]) {
        do {
            let stream = try soundServer.makeStream(sampleRate: engine.sampleRate, properties: properties)
            stream.onConsumed = { [weak self] frames in self?.engine.mailbox.consumed(frames: frames) }
            stream.onStateChange = { [weak self, weak stream] state in
                guard let self, let stream else { return }
                switch state {
                case .ready: self.startNext()
                case .failed:
                    guard self.stream === stream else { return }
                    Journal.log(.warning, "playback stream failed; opening a new one shortly")
                    self.endCurrent(.failed)   // before dropping the stream: stop() returns its FIFO to the mailbox
                    self.stream = nil
                    self.onStreamFailed()
                case .connecting: break
                }
            }
            self.stream = stream
        } catch {
            Journal.log(.error, "could not open a playback stream: \(error)")
        }
    }

    /// The sound server went away: everything in flight fails; the stream goes with it.
    func soundServerLost() {
        cancelAll(reason: .failed)   // before dropping the stream: stop() returns its FIFO to the mailbox
        stream = nil
    }
}
