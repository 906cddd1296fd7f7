import LectorAudio
import LectorCore
import LectorSpeech

/// What narration speaks through: a text segment (its rewrites applied, in one voice) in; on the
/// synthesis mailbox, PCM at the engine's rate and word boundaries as text offsets at sample
/// positions out; cancellable at once; off the loop thread. `SpeechEngine` (espeak-ng) is the
/// one today; a neural voice is the next. In-process tests give `Narrator` a fake.
@MainActor
protocol NarrationSynthesizer: AnyObject {
    func synthesize(id: UInt64, request: SpeechRequest, voice: Voice, delivery: SpeechEngine.Delivery)
    func cancel(id: UInt64)
    /// Audio the narrator dropped before the stream (trimmed silence) counts as heard: the
    /// engine's flow control waits for it otherwise.
    func consumed(frames: Int)
    /// The job is over: its flow-control bookkeeping goes.
    func forget(job: UInt64)
}

extension SpeechEngine: NarrationSynthesizer {
    func consumed(frames: Int) { mailbox.consumed(frames: frames) }
    func forget(job: UInt64) { mailbox.forget(job) }
}

/// The narration stream as `Narrator` uses it: a `PlaybackStream` on the sound server, a fake
/// over a `ManualLoop` in in-process tests. Frames count from the stream's own start.
@MainActor
protocol NarrationStream: PlaybackClock {
    var state: PlaybackStream.State { get }
    var gain: Double { get set }
    /// Frames handed to the server.
    var framesWritten: Int64 { get }
    /// Frames written and still queued with us: where the next enqueued audio starts.
    var endFrame: Int64 { get }
    /// The server's index for it (the audio policy's route and fade decisions).
    var serverIndex: UInt32? { get }
    func enqueue(_ samples: [Int16])
    /// Drops queued audio from `frame` on; returns where the stream now ends.
    @discardableResult func truncate(atFrame frame: Int64) -> Int64
    /// Cork: the clock stands still, what is queued stays.
    func pause()
    func resume()
    /// Drops everything queued, here and on the server.
    func stop()
}

extension PlaybackStream: NarrationStream {}
