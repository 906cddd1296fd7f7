import CPulse
import Glibc
import LectorLoop

/// One mono s16 playback stream with a small server-side buffer (about 30 ms), fed from a FIFO
/// of PCM chunks that the stream's write callback drains.
///
/// Made by `SoundServer.makeStream`, which owns the C stream: it disarms and frees it before the
/// context goes (`invalidate`), so no callback ever reaches a half-destroyed owner. Frames are
/// counted on one timeline for the stream's whole life: a sample enqueued now will be heard at
/// frame `endFrame`, and `heardFrame` says which frame the listener hears now. Kept corked while
/// idle, so an idle daemon costs the sound server nothing.
@MainActor
public final class PlaybackStream {
    public enum State: Equatable { case connecting, ready, failed }

    /// How much audio the server may buffer ahead of the speaker.
    public static let targetLatencyMilliseconds = 30

    public let sampleRate: Int
    public private(set) var state: State = .connecting
    /// Frames handed to the server (or flushed) so far.
    public private(set) var framesWritten: Int64 = 0
    /// Frames waiting in our FIFO.
    public private(set) var queuedFrames = 0
    public private(set) var isCorked = true
    /// The frame the next enqueued sample will occupy.
    public var endFrame: Int64 { framesWritten + Int64(queuedFrames) }

    /// Called with a frame count whenever frames leave the FIFO (written or dropped).
    public var onConsumed: (@MainActor (Int) -> Void)?
    public var onStateChange: (@MainActor (State) -> Void)?
    /// The server asks us to pause (`true`) or lets us go on (`false`): module-role-cork's
    /// `request-cork` / `request-uncork` stream events, sent when a call starts and ends.
    public var onCorkRequest: (@MainActor (Bool) -> Void)?

    /// Our sink input's index on the server, once connected.
    public var serverIndex: UInt32? {
        guard state == .ready, let stream else { return nil }
        let index = pa_stream_get_index(stream)
        return index == UInt32.max ? nil : index
    }

    /// `pa_stream *` until `invalidate`.
    private var stream: OpaquePointer?
    private var fifo: [[Int16]] = []
    private var timingWaiters: [@MainActor (Int64) -> Void] = []
    private var timingInFlight = false
    private var timingStale = false
    private var fifoOffset = 0

    init(context: OpaquePointer, sampleRate: Int, properties: [String: String]) throws {
        self.sampleRate = sampleRate
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(sampleRate), channels: 1)
        let proplist = Proplist(properties)
        guard let stream = pa_stream_new_with_proplist(context, properties[PA_PROP_MEDIA_NAME] ?? "Speech",
                                                       &spec, nil, proplist.pointer) else {
            throw SystemError(errno: 5, "pa_stream_new: \(String(cString: pa_strerror(pa_context_errno(context))))")
        }
        self.stream = stream
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_state_callback(stream, { _, userdata in
            let me = Unmanaged<PlaybackStream>.fromOpaque(userdata!)
            MainActor.assumeIsolated { me.takeUnretainedValue().stateChanged() }
        }, me)
        pa_stream_set_write_callback(stream, { _, _, userdata in
            let me = Unmanaged<PlaybackStream>.fromOpaque(userdata!)
            MainActor.assumeIsolated { me.takeUnretainedValue().fill() }
        }, me)
        pa_stream_set_event_callback(stream, { _, name, _, userdata in
            guard let name else { return }
            let event = String(cString: name)
            let me = Unmanaged<PlaybackStream>.fromOpaque(userdata!)
            MainActor.assumeIsolated {
                if event == PA_STREAM_EVENT_REQUEST_CORK { me.takeUnretainedValue().onCorkRequest?(true) }
                if event == PA_STREAM_EVENT_REQUEST_UNCORK { me.takeUnretainedValue().onCorkRequest?(false) }
            }
        }, me)

        let bytesPerMillisecond = UInt32(sampleRate * 2 / 1000)
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max,
            tlength: bytesPerMillisecond * UInt32(Self.targetLatencyMilliseconds),
            prebuf: bytesPerMillisecond * 5,
            minreq: bytesPerMillisecond * 5,
            fragsize: UInt32.max)
        let flags = pa_stream_flags_t(PA_STREAM_START_CORKED.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | PA_STREAM_ADJUST_LATENCY.rawValue)
        if pa_stream_connect_playback(stream, nil, &attributes, flags, nil, nil) < 0 {
            // deinit releases the stream (self is fully initialized here): no unref of our own.
            throw SystemError(errno: 5, "pa_stream_connect_playback: \(String(cString: pa_strerror(pa_context_errno(context))))")
        }
    }

    isolated deinit { invalidate() }

    /// Disarms every callback, then disconnects and frees the C stream (idempotent). Called by
    /// the sound server before its context goes, and when the owner lets the stream go. What is
    /// still queued stays counted: `stop()` hands it back through `onConsumed`.
    public func invalidate() {
        guard let stream else { return }
        self.stream = nil
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_event_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
        state = .failed
    }

    /// Queues PCM and starts playing it.
    public func enqueue(_ samples: [Int16]) {
        guard !samples.isEmpty else { return }
        fifo.append(samples)
        queuedFrames += samples.count
        if isCorked { setCorked(false) }
        fill()
    }

    /// Silence at once: queued and buffered audio is dropped and the stream corked.
    public func stop() {
        let dropped = queuedFrames
        framesWritten += Int64(dropped)
        fifo.removeAll()
        fifoOffset = 0
        queuedFrames = 0
        if dropped > 0 { onConsumed?(dropped) }
        guard state == .ready, let stream else { return }
        Self.release(pa_stream_flush(stream, nil, nil))
        setCorked(true)
        updateTiming()
    }

    /// Drops queued audio from `frame` on (frames still in our FIFO only; what the server has
    /// is kept). Returns the frame where the stream now ends.
    @discardableResult
    public func truncate(atFrame frame: Int64) -> Int64 {
        let keep = Int(max(0, frame - framesWritten))
        guard keep < queuedFrames else { return endFrame }
        var remaining = keep + fifoOffset
        var kept: [[Int16]] = []
        for chunk in fifo where remaining > 0 {
            let take = min(remaining, chunk.count)
            kept.append(take == chunk.count ? chunk : Array(chunk[..<take]))
            remaining -= take
        }
        let dropped = queuedFrames - keep
        fifo = kept
        queuedFrames = keep
        onConsumed?(dropped)
        return endFrame
    }

    /// Pauses at once, keeping every buffered sample: `resume` continues at exactly that sample.
    public func pause() {
        if !isCorked { setCorked(true) }
    }

    public func resume() {
        if isCorked { setCorked(false) }
        fill()
    }

    /// Our own amplitude factor 0...1 (MPRIS Volume), applied to samples as they go to the
    /// server (heard within the ~30 ms it buffers). Not the server's stream volume: that one is
    /// the listener's, and servers save it per role (WirePlumber files narration with every
    /// `music` player), so setting it would change other apps' saved volumes.
    public var gain: Double = 1 {
        didSet { gain = min(1, max(0, gain)) }
    }

    /// Corks once everything enqueued has been heard (the caller knows when that is).
    public func idle() {
        if !isCorked, queuedFrames == 0 { setCorked(true) }
    }

    /// Asks the server where playback is and calls `completion` with the frame being heard.
    public func heardFrame(_ completion: @escaping @MainActor (Int64) -> Void) {
        guard state == .ready, stream != nil else { return }
        timingWaiters.append(completion)
        updateTiming()
    }

    /// One timing query in flight at a time: libpulse refuses (returns no operation) once 32 are
    /// unanswered, which a burst of seeks or pauses reached. Asking again while one is in flight
    /// marks it stale: a fresh one follows it, and the waiters get that one.
    private func updateTiming() {
        guard state == .ready, let stream else { return }
        if timingInFlight {
            timingStale = true
            return
        }
        let box = Unmanaged.passRetained(TimingRequest(stream: self)).toOpaque()
        guard let operation = pa_stream_update_timing_info(stream, { _, _, userdata in
            let request = Unmanaged<TimingRequest>.fromOpaque(userdata!)
            MainActor.assumeIsolated { request.takeRetainedValue().stream?.timingArrived() }
        }, box) else {
            Unmanaged<TimingRequest>.fromOpaque(box).release()
            return
        }
        timingInFlight = true
        pa_operation_unref(operation)
    }

    private func timingArrived() {
        timingInFlight = false
        if timingStale {
            timingStale = false
            return updateTiming()
        }
        let waiters = timingWaiters
        timingWaiters = []
        let frame = currentHeardFrame()
        for waiter in waiters { waiter(frame) }
    }

    /// Asks the server where playback is, for `currentHeardFrame()` to interpolate from; nobody
    /// waits for the answer.
    public func refreshTiming() {
        guard state == .ready, stream != nil else { return }
        updateTiming()
    }

    /// Whether `currentHeardFrame()` can be trusted as it is: the server said where playback was
    /// less than `maxAge` microseconds ago, and nothing since made that answer wrong (a flush,
    /// or a reply from before playback started, which does not move). Otherwise ask again
    /// (`heardFrame(_:)`) before announcing what is heard.
    public func timingIsFresh(maxAge: UInt64) -> Bool {
        guard state == .ready, let stream, !timingInFlight, let info = pa_stream_get_timing_info(stream)?.pointee,
              info.write_index_corrupt == 0, info.read_index_corrupt == 0 else { return false }
        if info.playing == 0, !isCorked, info.write_index > info.read_index { return false }
        var now = timeval()
        gettimeofday(&now, nil)
        let age = (Int64(now.tv_sec) - Int64(info.timestamp.tv_sec)) * 1_000_000
            + Int64(now.tv_usec) - Int64(info.timestamp.tv_usec)
        return age >= 0 && UInt64(age) < maxAge
    }

    /// Microseconds between looks at most while something waits to be heard.
    public static let longestTimingGap: UInt64 = 1_000_000

    /// When to look again for `frame`: the microseconds until the interpolated clock reaches it
    /// (plus 1 ms), but at most `longest`, in case the clock stopped meanwhile (an underrun).
    public func microseconds(untilHeard frame: Int64, atMost longest: UInt64 = longestTimingGap) -> UInt64 {
        let ahead = max(0, frame - currentHeardFrame())
        return min(UInt64(ahead) * 1_000_000 / UInt64(sampleRate) + 1_000, longest)
    }

    /// From the last timing update: frames written minus what is still ahead of the speaker
    /// (in the stream's buffer and the sink's), less the time played since that update.
    /// Computed by hand: `pa_stream_get_latency` read 0 here with data still buffered.
    public func currentHeardFrame() -> Int64 {
        guard let stream, let info = pa_stream_get_timing_info(stream)?.pointee,
              info.write_index_corrupt == 0, info.read_index_corrupt == 0 else { return framesWritten }
        // Underrun with an empty buffer: everything written has been played. (The sink's own
        // latency reading stays non-zero while it renders silence, so it cannot tell us that.)
        if info.playing == 0, info.write_index <= info.read_index { return framesWritten }
        // pipewire-pulse after an underrun: it may leave less than `minreq` unplayed for ever
        // (seen: 52 bytes of 236). Nothing more is coming, so all of it counts as heard.
        if info.playing == 0, !isCorked, queuedFrames == 0,
           let attributes = pa_stream_get_buffer_attr(stream)?.pointee,
           info.write_index - info.read_index < Int64(attributes.minreq) {
            return framesWritten
        }
        var aheadMicroseconds = Int64(info.sink_usec)
        if info.playing != 0 && !isCorked {
            var now = timeval()
            gettimeofday(&now, nil)
            let elapsed = (Int64(now.tv_sec) - Int64(info.timestamp.tv_sec)) * 1_000_000
                + Int64(now.tv_usec) - Int64(info.timestamp.tv_usec)
            aheadMicroseconds -= elapsed
        }
        let ahead = (info.write_index - info.read_index) / 2 + aheadMicroseconds * Int64(sampleRate) / 1_000_000
        return framesWritten - max(0, ahead)
    }

    private func setCorked(_ corked: Bool) {
        isCorked = corked
        guard state == .ready, let stream else { return }
        Self.release(pa_stream_cork(stream, corked ? 1 : 0, nil, nil))
        // Answered after the cork: the position frozen by a pause reads right at once.
        updateTiming()
    }

    private func fill() {
        guard state == .ready, let stream, queuedFrames > 0 else { return }
        var writable = pa_stream_writable_size(stream) / 2
        var written = 0
        while writable > 0, let chunk = fifo.first {
            let count = min(writable, chunk.count - fifoOffset)
            let r: Int32
            if gain < 1 {
                let scaled = chunk[fifoOffset..<fifoOffset + count].map { Int16((Double($0) * gain).rounded()) }
                r = scaled.withUnsafeBufferPointer { pa_stream_write(stream, $0.baseAddress!, count * 2, nil, 0, PA_SEEK_RELATIVE) }
            } else {
                r = chunk.withUnsafeBufferPointer { buffer in
                    pa_stream_write(stream, buffer.baseAddress! + fifoOffset, count * 2, nil, 0, PA_SEEK_RELATIVE)
                }
            }
            guard r >= 0 else { break }
            written += count
            writable -= count
            fifoOffset += count
            if fifoOffset == chunk.count {
                fifo.removeFirst()
                fifoOffset = 0
            }
        }
        guard written > 0 else { return }
        queuedFrames -= written
        framesWritten += Int64(written)
        onConsumed?(written)
    }

    private func stateChanged() {
        guard let stream else { return }
        switch pa_stream_get_state(stream) {
        case PA_STREAM_READY:
            state = .ready
            if !isCorked { setCorked(false) }
            fill()
        case PA_STREAM_FAILED, PA_STREAM_TERMINATED:
            state = .failed
        default:
            return
        }
        onStateChange?(state)
    }

    /// libpulse returns no operation when it cannot send a request (e.g. the connection is
    /// going): nothing to release then.
    private static func release(_ operation: OpaquePointer?) {
        if let operation { pa_operation_unref(operation) }
    }

    /// Weak: libpulse never calls back for a request cancelled by a lost server.
    private final class TimingRequest {
        weak var stream: PlaybackStream?
        init(stream: PlaybackStream) { self.stream = stream }
    }
}
