import LectorAudio
import LectorCore
import LectorSpeech

/// The synthesis mailbox and the sound server: results go to the narrator or the announcer;
/// streams open when the server is there and go when it goes.
extension LectorService {
    /// Each synthesis result to whoever asked for it.
    func drainSynthesis() {
        for output in engine.mailbox.drain() {
            if narrator.owns(job: output.id) {
                narrator.handle(output)
            } else {
                announcer.handle(output)
            }
        }
        announcer.rescheduleMarkers()
    }

    // MARK: - sound server

    func soundServerChanged(_ state: SoundServer.State) {
        switch state {
        case .ready:
            Journal.log(.info, "connected to the sound server")
            announcer.openStream(on: soundServer, properties: Self.streamProperties)
            openNarrationStreamIfWanted()
        case .unavailable(let reason):
            Journal.log(.warning, "sound server unavailable: \(reason); retrying",
                        fields: ["LECTOR_ERROR": "SoundServerUnavailable"])
            announcer.soundServerLost()
            audioPolicy.soundServerLost()
            audioPolicy.pauseNarration(because: "sound-server-lost")
            narrator.stream = nil
        case .connecting:
            break
        }
    }

    /// Reopens whichever stream is missing (a failed stream waits `streamRetrySeconds`, so a
    /// server without a sink costs one attempt a second, not a busy loop).
    func reopenMissingStreams() {
        guard soundServer.state == .ready else { return }
        if announcer.stream == nil { announcer.openStream(on: soundServer, properties: Self.streamProperties) }
        openNarrationStreamIfWanted()
    }

    /// The narrator has a stream only while a book plays or is paused: Stop lets it go and Play
    /// asks for a new one (`Narrator.onNeedsStream`), so a stopped or idle daemon holds nothing
    /// on the sound server.
    func openNarrationStreamIfWanted() {
        guard soundServer.state == .ready, narrator.stream == nil, narrator.wantsStream else { return }
        openNarrationStream()
    }

    /// The narrator's own stream: `media.role=music`, so it is treated as the book it is.
    private func openNarrationStream() {
        guard soundServer.context != nil else { return }
        var properties = Self.streamProperties
        properties["media.role"] = "music"
        properties["media.name"] = "Lector narration"
        properties["module-stream-restore.id"] = "sink-input-by-application-id:io.github.lector.Lector.narration"
        do {
            let stream = try soundServer.makeStream(sampleRate: engine.sampleRate, properties: properties,
                                                    buffering: .narration, idleBuffering: nil)
            stream.onConsumed = { [weak self] frames in self?.engine.mailbox.consumed(frames: frames) }
            stream.onCorkRequest = { [weak self] cork in self?.audioPolicy.corkRequested(cork) }
            stream.onStateChange = { [weak self, weak stream] state in
                guard let self, let stream else { return }
                switch state {
                case .ready:
                    stream.gain = self.narrator.state.volume
                    self.narrator.feed()
                case .failed:
                    guard self.narrator.stream === stream else { return }
                    Journal.log(.warning, "narration stream failed; opening a new one in \(Self.streamRetrySeconds) s")
                    self.audioPolicy.pauseNarration(because: "stream-failed")
                    self.narrator.stream = nil
                    self.scheduleStreamRetry()
                case .connecting: break
                }
            }
            narrator.stream = stream
        } catch {
            Journal.log(.error, "could not open the narration stream: \(error)")
        }
    }
}
