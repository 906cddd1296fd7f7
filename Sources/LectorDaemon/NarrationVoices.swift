import LectorCore
import LectorLoop
import LectorNeuralSpeech
import LectorSpeech

/// Narration's synthesizer: espeak-ng for its own voices, a `NeuralSynthesizer` per Piper voice
/// for a neural one (made at its first use; its model loads on its own thread, so the loop never
/// waits for it), all on the one synthesis mailbox the loop drains. A neural voice that cannot
/// speak hands each job to espeak-ng itself, so narration goes on from the same word.
@MainActor
final class NarrationVoices: NarrationSynthesizer {
    let espeak: SpeechEngine
    /// espeak-ng's voices: who reads a neural voice's phonemes, and speaks when it cannot.
    private let espeakVoices: VoiceCatalog
    private var neural: [String: NeuralSynthesizer] = [:]
    /// A neural voice (by name) could not speak: said once per reason, in the journal and here,
    /// on the loop; espeak-ng reads meanwhile. A nil message: it speaks again (a new worker).
    var onProblem: ((_ voice: String, _ message: String?) -> Void)?

    init(espeak: SpeechEngine, voices: VoiceCatalog) {
        self.espeak = espeak
        espeakVoices = voices
    }

    func synthesize(id: UInt64, request: SpeechRequest, voice: Voice, delivery: SpeechEngine.Delivery) {
        guard let details = voice.neural else {
            espeak.synthesize(id: id, request: request, voice: voice, delivery: delivery)
            return
        }
        guard let reader = espeakVoices.reader(for: voice) else {
            espeak.synthesize(id: id, request: request, voice: voice, delivery: delivery)   // fails by name there
            return
        }
        let synthesizer = neural[details.modelPath] ?? {
            let made = NeuralSynthesizer(modelPath: details.modelPath, espeakVoice: reader, espeak: espeak,
                                         mailbox: espeak.mailbox, outputRate: espeak.sampleRate) { [weak self, name = voice.name] message in
                if let message {
                    Journal.log(.warning, message, fields: ["LECTOR_ERROR": "VoiceUnavailable", "LECTOR_VOICE": name])
                } else {
                    Journal.log(.info, "the voice \(name) speaks again", fields: ["LECTOR_VOICE": name])
                }
                LoopInbox.post { self?.onProblem?(name, message) }
            }
            neural[details.modelPath] = made
            return made
        }()
        synthesizer.synthesize(id: id, request: request, delivery: delivery)
    }

    func cancel(id: UInt64) {
        espeak.cancel(id: id)
        for synthesizer in neural.values { synthesizer.cancel(id: id) }
    }

    func consumed(frames: Int) { espeak.mailbox.consumed(frames: frames) }
    func forget(job: UInt64) { espeak.mailbox.forget(job) }

    /// Teardown, before espeak-ng's: the neural workers end (a run in progress is cancelled).
    func close() {
        for synthesizer in neural.values { synthesizer.shutdown() }
        neural = [:]
    }
}
