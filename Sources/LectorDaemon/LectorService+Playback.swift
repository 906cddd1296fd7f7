import LectorAudio
import LectorCore
import LectorSpeech

/// From the queue through the synthesizer to the speaker, and the bus signals on the way.
extension LectorService {
    /// Starts the next queued speech if nothing is speaking and the sound server is there.
    func startNext() {
        defer { updateDuck() }
        guard current == nil, let stream, stream.state == .ready,
              let (id, request, priority) = queue.next(where: mayStart) else { return }
        guard prepareAudibility(for: request) else {
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
        let job = nextJob
        nextJob += 1
        let speech = ActiveSpeech(id: id, job: job, request: request, priority: priority)
        current = speech
        narrator.hold()   // narration pauses (not ducks) and frees the speech thread
        var spoken = request
        spoken.text = speech.spoken.text
        engine.synthesize(id: job, request: spoken, voice: voice)
    }

    /// Ends the current speech now: silence, forget its pending events, tell the bus why.
    func endCurrent(_ reason: FinishReason) {
        guard let speech = current else { return }
        current = nil
        if !speech.synthesisDone { engine.cancel(id: speech.job) }
        stream?.stop()
        schedule.removeAll { $0.id == speech.id }
        emitFinished(speech.id, reason)
        if reason != .cancelled {
            Journal.log(.warning, "speech \(speech.id) ended: \(reason.rawValue)",
                        fields: ["LECTOR_SPEECH_ID": String(speech.id)])
        }
    }

    func cancelAll(reason: FinishReason) {
        endCurrent(reason)
        for id in queue.removeAll() { emitFinished(id, reason) }
        updateDuck()
    }

    // MARK: - synthesis results

    func drainSynthesis() {
        for output in engine.mailbox.drain() {
            if narrator.owns(job: output.id) {
                narrator.handle(output)
                continue
            }
            guard var speech = current, speech.job == output.id else {
                // An abandoned job: release its audio and forget it once it has finished.
                if case .audio(_, let samples) = output { engine.mailbox.consumed(frames: samples.count) }
                if case .finished(let job, _, _) = output { engine.mailbox.forget(job) }
                continue
            }
            switch output {
            case .audio(_, let samples):
                accept(samples, for: &speech)
            case .word(_, let word):
                if let base = speech.baseFrame {
                    schedule.add(speech.range(of: word), at: speech.frame(of: word, base: base))
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
                    continue   // the rest of the batch may belong to the narrator or the next speech
                }
                if speech.baseFrame == nil {
                    // Nothing audible (only punctuation, say): done at once.
                    current = nil
                    emit("SpeechStarted") { try $0.append(speech.id) }
                    emitFinished(speech.id, .done)
                    startNext()
                    continue
                }
                schedule.add(.finished(id: speech.id), at: stream?.endFrame ?? 0)
            }
            current = speech
        }
        rescheduleMarkers()
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
            schedule.add(.started(id: speech.id), at: base)
            for word in speech.earlyWords {
                schedule.add(speech.range(of: word), at: speech.frame(of: word, base: base))
            }
            speech.earlyWords = []
        }
        stream.enqueue(Array(kept))
    }

    // MARK: - hearing

    /// Arms the timer for the next event, from the interpolated playback position.
    func rescheduleMarkers() {
        guard let next = schedule.nextFrame, let stream else {
            markerTimer.cancel()
            return
        }
        let ahead = max(0, next - stream.currentHeardFrame())
        // The estimate is only as fresh as the last timing reply: ask again at least every 200 ms.
        markerTimer.schedule(noLaterThan: min(UInt64(ahead) * 1_000_000 / UInt64(stream.sampleRate) + 1_000, Self.longestTimingGap))
    }

    /// Asks the server where playback is, then announces everything heard by now.
    func checkHeard() {
        guard let stream else { return }
        stream.heardFrame { [weak self] heard in
            guard let self else { return }
            for event in self.schedule.due(heard: heard) { self.announce(event) }
            self.rescheduleMarkers()
        }
    }

    private func announce(_ event: HeardEvent) {
        switch event {
        case .started(let id):
            emit("SpeechStarted") { try $0.append(id) }
        case .range(let id, let start, let length):
            emit("SpeakingRange") { try $0.append(id); try $0.append(start); try $0.append(length) }
        case .finished(let id):
            guard current?.id == id else { return }
            current = nil
            emitFinished(id, .done)
            stream?.idle()
            startNext()
        }
    }

    // MARK: - sound server

    func soundServerChanged(_ state: SoundServer.State) {
        switch state {
        case .ready:
            Journal.log(.info, "connected to the sound server")
            if let context = soundServer.context { policy.mirror.attach(context: context) }
            openStream()
            openNarrationStream()
        case .unavailable(let reason):
            Journal.log(.warning, "sound server unavailable: \(reason); retrying",
                        fields: ["LECTOR_ERROR": "SoundServerUnavailable"])
            cancelAll(reason: .failed)   // before dropping the stream: stop() returns its FIFO to the mailbox
            soundServerLost()
            stream = nil
            pauseNarration(because: "sound-server-lost")
            narrator.stream = nil
        case .connecting:
            break
        }
    }

    /// The narrator's own stream: `media.role=music`, so it is treated as the book it is.
    /// Reopens whichever stream is missing (a failed stream waits `streamRetrySeconds`, so a
    /// server without a sink costs one attempt a second, not a busy loop).
    func reopenMissingStreams() {
        guard soundServer.state == .ready else { return }
        if stream == nil { openStream() }
        if narrator.stream == nil { openNarrationStream() }
    }

    private func openNarrationStream() {
        guard soundServer.context != nil else { return }
        var properties = Self.streamProperties
        properties["media.role"] = "music"
        properties["media.name"] = "Lector narration"
        properties["module-stream-restore.id"] = "sink-input-by-application-id:io.github.lector.Lector.narration"
        do {
            let stream = try soundServer.makeStream(sampleRate: engine.sampleRate, properties: properties)
            stream.onConsumed = { [weak self] frames in self?.engine.mailbox.consumed(frames: frames) }
            stream.onCorkRequest = { [weak self] cork in self?.corkRequested(cork) }
            stream.onStateChange = { [weak self, weak stream] state in
                guard let self, let stream else { return }
                switch state {
                case .ready:
                    stream.gain = self.narrator.state.volume
                    self.narrator.feed()
                case .failed:
                    guard self.narrator.stream === stream else { return }
                    Journal.log(.warning, "narration stream failed; opening a new one in \(Self.streamRetrySeconds) s")
                    self.pauseNarration(because: "stream-failed")
                    self.narrator.stream = nil
                    self.streamRetry.schedule(noLaterThan: Self.streamRetrySeconds * 1_000_000)
                case .connecting: break
                }
            }
            narrator.stream = stream
        } catch {
            Journal.log(.error, "could not open the narration stream: \(error)")
        }
    }

    private func openStream() {
        guard soundServer.context != nil else { return }
        do {
            let stream = try soundServer.makeStream(sampleRate: engine.sampleRate,
                                            properties: Self.streamProperties)
            stream.onConsumed = { [weak self] frames in self?.engine.mailbox.consumed(frames: frames) }
            stream.onStateChange = { [weak self, weak stream] state in
                guard let self, let stream else { return }
                switch state {
                case .ready: self.startNext()
                case .failed:
                    guard self.stream === stream else { return }
                    Journal.log(.warning, "playback stream failed; opening a new one in \(Self.streamRetrySeconds) s")
                    self.endCurrent(.failed)   // before dropping the stream, as above
                    self.stream = nil
                    self.streamRetry.schedule(noLaterThan: Self.streamRetrySeconds * 1_000_000)
                case .connecting: break
                }
            }
            self.stream = stream
        } catch {
            Journal.log(.error, "could not open a playback stream: \(error)")
        }
    }
}
