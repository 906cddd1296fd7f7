import CPulse
import Glibc
import LectorLoop

/// One mono s16 playback stream, fed from a FIFO of PCM chunks that the stream's write callback
/// drains, with one of two ways of buffering (`Buffering`): announcements keep ~30 ms on the
/// server, narration seconds.
///
/// Made by `SoundServer.makeStream`, which owns the C stream: it disarms and frees it before the
/// context goes (`invalidate`), so no callback ever reaches a half-destroyed owner. Frames are
/// counted on one timeline for the stream's whole life: a sample enqueued now will be heard at
/// frame `endFrame`, and `currentHeardFrame()` says which frame the listener hears now. Kept
/// corked while idle, so an idle daemon costs the sound server nothing.
///
/// What the server holds is not final: `truncate(atFrame:)` and a change of `gain` rewrite it in
/// place from a frame on (a write that seeks back; PulseAudio rewinds its sink to play the new
/// samples, pipewire-pulse overwrites its ring), so narration can keep seconds on the server and
/// still change rate or volume at the next word. `pause()` corks (PulseAudio rewinds: silence at
/// once, nothing lost); `stop()` corks, then flushes.
@MainActor
public final class PlaybackStream {
    public enum State: Equatable { case connecting, ready, failed }

    /// How much the server holds and how often it asks for more (`pa_buffer_attr`).
    public struct Buffering: Sendable, Equatable {
        /// The target fill of the server's buffer (tlength), in milliseconds.
        public var targetMilliseconds: Int
        /// The server asks for more once this much is missing (minreq).
        public var requestMilliseconds: Int
        /// Played only once this much is there (prebuf), after a start, an underrun or a flush.
        public var prebufMilliseconds: Int
        /// PA_STREAM_ADJUST_LATENCY: `target` is the whole latency, half of it on the sink. Without
        /// it the sink (PipeWire: the graph's quantum) is asked for `target - 2 * request`.
        public var adjustLatency: Bool

        public init(targetMilliseconds: Int, requestMilliseconds: Int, prebufMilliseconds: Int, adjustLatency: Bool) {
            self.targetMilliseconds = targetMilliseconds
            self.requestMilliseconds = requestMilliseconds
            self.prebufMilliseconds = prebufMilliseconds
            self.adjustLatency = adjustLatency
        }

        /// An announcement must start now: about 30 ms in all, refilled every 5 ms.
        public static let announcement = Buffering(targetMilliseconds: 30, requestMilliseconds: 5,
                                                   prebufMilliseconds: 5, adjustLatency: true)

        /// A book: 8 s on the server, topped up when 3 s are missing, the sink asked for 2 s
        /// (PulseAudio's null and ALSA sinks then wake about once per 2 s for it; PipeWire caps the
        /// quantum at its max-quantum). Fewer top-ups would mean fewer wake-ups still, but each
        /// played memblock is released with a message of its own, as often as the sink mixes.
        public static let narration: Buffering = {
            // Experiments only: LECTOR_NARRATION_BUFFER=target,request,prebuf,adjust(0|1).
            if let value = getenv("LECTOR_NARRATION_BUFFER").map({ String(cString: $0) }) {
                let parts = value.split(separator: ",").compactMap { Int($0) }
                if parts.count == 4 {
                    return Buffering(targetMilliseconds: parts[0], requestMilliseconds: parts[1],
                                     prebufMilliseconds: parts[2], adjustLatency: parts[3] != 0)
                }
            }
            return Buffering(targetMilliseconds: 8000, requestMilliseconds: 3000, prebufMilliseconds: 5, adjustLatency: false)
        }()

        /// A corked stream that asks nothing of the sink. PulseAudio runs a sink at the lowest
        /// latency any of its streams asks for, corked ones included: an idle announcement stream
        /// asking for 30 ms made the sink wake every 10 ms while anything else played (paplay of
        /// a WAV woke itself 81 times a second beside an idle lector instead of 6.5).
        public static let idle = Buffering(targetMilliseconds: 4000, requestMilliseconds: 1000, prebufMilliseconds: 5,
                                           adjustLatency: false)

        func attributes(sampleRate: Int) -> pa_buffer_attr {
            func bytes(_ milliseconds: Int) -> UInt32 { UInt32(sampleRate * milliseconds / 1000 * 2) }
            return pa_buffer_attr(maxlength: UInt32.max, tlength: bytes(targetMilliseconds), prebuf: bytes(prebufMilliseconds),
                                  minreq: bytes(requestMilliseconds), fragsize: UInt32.max)
        }
    }

    public let sampleRate: Int
    /// While playing.
    public let buffering: Buffering
    /// While corked by `idle()` or `stop()` (nil: `buffering` all the time), applied with
    /// `pa_stream_set_buffer_attr` before the cork is lifted and after it is set again.
    public let idleBuffering: Buffering?
    private var appliedBuffering: Buffering
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
    /// Until when (the loop's `now`, µs) a reply saying "not playing" with audio queued is asked
    /// again: set as the cork is lifted.
    private var startingUntil: UInt64 = 0
    private let loop: any LoopScheduling
    /// Asks again, a moment later, while the server says "not playing" just after an uncork.
    private var startTimer: (any LoopTimer)?
    private var fifoOffset = 0
    /// What was written to the server lately, as enqueued (before `gain`), newest last: what a
    /// rewrite sends again. Covers at least the server's buffer.
    private var history: [(frame: Int64, samples: [Int16])] = []
    private var historyFrames = 0
    /// The server's buffer may hold up to this many frames (what `history` keeps at least).
    private let historyLimit: Int
    /// Frames the next write seeks back from the server's write index (a rewrite).
    private var pendingSeekFrames: Int64 = 0
    /// `framesWritten` at the last flush: the server's write index no longer matches frames before
    /// it, so no rewrite reaches back past it.
    private var flushedAt: Int64 = 0

    init(context: OpaquePointer, sampleRate: Int, properties: [String: String], buffering: Buffering,
         idleBuffering: Buffering?, loop: any LoopScheduling) throws {
        self.sampleRate = sampleRate
        self.loop = loop
        self.buffering = buffering
        self.idleBuffering = idleBuffering
        appliedBuffering = idleBuffering ?? buffering   // it starts corked
        // The server holds up to `target` in its queue and its sink's latency (at most about as much) on top.
        historyLimit = sampleRate * (buffering.targetMilliseconds * 2 + 1000) / 1000
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(sampleRate), channels: 1)
        let proplist = Proplist(properties)
        guard let stream = pa_stream_new_with_proplist(context, properties[PA_PROP_MEDIA_NAME] ?? "Speech",
                                                       &spec, nil, proplist.pointer) else {
            throw SystemError(errno: 5, "pa_stream_new: \(String(cString: pa_strerror(pa_context_errno(context))))")
        }
        self.stream = stream
        startTimer = try loop.makeTimer { [weak self] in self?.updateTiming() }
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

        var attributes = appliedBuffering.attributes(sampleRate: sampleRate)
        let flags = pa_stream_flags_t(PA_STREAM_START_CORKED.rawValue | PA_STREAM_INTERPOLATE_TIMING.rawValue
                                      | (buffering.adjustLatency ? PA_STREAM_ADJUST_LATENCY.rawValue : 0))
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
        startTimer?.close()
        startTimer = nil
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

    /// Silence at once: queued and buffered audio is dropped and the stream corked. Corked first:
    /// PulseAudio then takes back what its sink had mixed of ours and the flush drops it too (a
    /// flush alone leaves that part playing, and a cork after it leaves a hole as long as the
    /// sink's latency, heard as silence before the next sound).
    public func stop() {
        let dropped = queuedFrames
        framesWritten += Int64(dropped)
        fifo.removeAll()
        fifoOffset = 0
        queuedFrames = 0
        history.removeAll()
        historyFrames = 0
        pendingSeekFrames = 0
        flushedAt = framesWritten
        if dropped > 0 { onConsumed?(dropped) }
        guard state == .ready, let stream else { return }
        setCorked(true, idling: true)
        Self.release(pa_stream_flush(stream, nil, nil))
        updateTiming()
    }

    /// Drops queued audio from `frame` on: in our FIFO, and what the server already has of it,
    /// which is overwritten at once by the last few milliseconds before `frame`, sent again (so
    /// the server's queue ends at `frame`; what is enqueued next follows there). Frames before the
    /// last `stop()` cannot be reached. Returns the frame where the stream now ends.
    @discardableResult
    public func truncate(atFrame frame: Int64) -> Int64 {
        let frame = max(frame, flushedAt)
        guard frame < endFrame else { return endFrame }
        guard frame < framesWritten else {
            let keep = Int(frame - framesWritten)
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
        // The server has audio past `frame`: the FIFO goes, and the server's queue is cut there.
        let dropped = queuedFrames
        fifo.removeAll()
        fifoOffset = 0
        queuedFrames = 0
        if dropped > 0 { onConsumed?(dropped) }
        let resend = max(frame - Int64(sampleRate / 100), flushedAt, historyStart)
        rewrite(from: resend, to: frame)
        return endFrame
    }

    /// Sends `history` from `start` to `end` again in place of what the server has there (seeking
    /// back from its write index), and forgets everything written after `end`.
    private func rewrite(from start: Int64, to end: Int64) {
        let start = max(start, flushedAt, historyStart)
        guard start <= end, end <= framesWritten else { return }
        pendingSeekFrames += framesWritten - start
        framesWritten = start
        var samples: [Int16] = []
        samples.reserveCapacity(Int(end - start))
        for entry in history {
            let entryEnd = entry.frame + Int64(entry.samples.count)
            guard entryEnd > start, entry.frame < end else { continue }
            let from = Int(max(start, entry.frame) - entry.frame), to = Int(min(end, entryEnd) - entry.frame)
            samples.append(contentsOf: entry.samples[from..<to])
        }
        forgetHistory(from: start)
        if samples.isEmpty {
            // Nothing to send again: the seek goes with the next write.
            return
        }
        write(samples)
    }

    /// The first frame `history` still holds.
    private var historyStart: Int64 { history.first?.frame ?? framesWritten }

    /// Pauses at once, keeping every buffered sample: `resume` continues at exactly that sample.
    public func pause() {
        if !isCorked { setCorked(true) }
    }

    public func resume() {
        if isCorked { setCorked(false) }
        fill()
    }

    /// Our own amplitude factor 0...1 (MPRIS Volume), applied to samples as they go to the
    /// server; what the server holds from `rewriteLead` after the frame being heard is sent again
    /// at the new gain, so a change is heard at once however much is buffered. Not the server's
    /// stream volume: that one is the listener's, and servers save it per role (WirePlumber files
    /// narration with every `music` player), so setting it would change other apps' saved volumes.
    public var gain: Double = 1 {
        didSet {
            gain = min(1, max(0, gain))
            guard gain != oldValue, state == .ready, framesWritten > flushedAt else { return }
            let from = currentHeardFrame() + Int64(sampleRate) * Self.rewriteLeadMilliseconds / 1000
            if from < framesWritten { rewrite(from: from, to: framesWritten) }
        }
    }

    /// How far after the frame being heard a rewrite starts: time for the request to reach the
    /// server, which cannot take back what its sink is already playing.
    public static let rewriteLeadMilliseconds: Int64 = 30

    /// Corks once everything enqueued has been heard (the caller knows when that is).
    public func idle() {
        if !isCorked, queuedFrames == 0 { setCorked(true, idling: true) }
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
        // Asked as the cork was lifted, the server may answer "not playing" with seconds queued
        // (nothing rendered since the uncork yet: PulseAudio a few ms, pipewire-pulse a graph
        // cycle or two, seen up to 15 ms). The interpolated clock would then stand still until
        // the next question, and Position with it (0.5 s behind in CI): ask again shortly.
        if !isCorked, loop.now < startingUntil, let stream,
           let info = pa_stream_get_timing_info(stream)?.pointee, info.playing == 0, info.write_index > info.read_index {
            startTimer?.schedule(noLaterThan: Self.startingRetryMicroseconds)
        }
    }

    private static let startingRetryMicroseconds: UInt64 = 4_000

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

    /// What the sink holds ahead of the speaker, by the last timing update.
    private var sinkLatencyFrames: Int {
        guard let stream, let info = pa_stream_get_timing_info(stream)?.pointee else { return 0 }
        return Int(Int64(info.sink_usec) * Int64(sampleRate) / 1_000_000)
    }

    /// From the last timing update: frames written minus what is still ahead of the speaker
    /// (in the stream's buffer and the sink's), less the time played since that update.
    /// Computed by hand: `pa_stream_get_latency` read 0 here with data still buffered.
    public func currentHeardFrame() -> Int64 {
        guard let stream else { return framesWritten }
        // No timing reply yet (a stream just made): nothing is known to be heard since the last
        // flush. Counting every written frame as heard would put Position and the words seconds
        // ahead, as far as the first batch written (pipewire-pulse can answer after that).
        guard let timing = pa_stream_get_timing_info(stream) else { return flushedAt }
        let info = timing.pointee
        guard info.write_index_corrupt == 0, info.read_index_corrupt == 0 else { return framesWritten }
        // Underrun with an empty buffer: everything written has been played. (The sink's own
        // latency reading stays non-zero while it renders silence, so it cannot tell us that.)
        if info.playing == 0, info.write_index <= info.read_index { return framesWritten }
        // pipewire-pulse after an underrun: it may leave less than `minreq` unplayed for ever
        // (seen: 52 bytes of 236). Nothing more is coming, so all of it counts as heard.
        if info.playing == 0, !isCorked, queuedFrames == 0,
           let attributes = pa_stream_get_buffer_attr(stream)?.pointee,
           info.write_index - info.read_index < Int64(min(attributes.minreq, UInt32(sampleRate / 50 * 2))) {
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

    private func setCorked(_ corked: Bool, idling: Bool = false) {
        isCorked = corked
        guard state == .ready, let stream else { return }
        if !corked {
            apply(buffering)
            startingUntil = loop.now + 1_000_000
        }
        Self.release(pa_stream_cork(stream, corked ? 1 : 0, nil, nil))
        if corked, idling, let idleBuffering { apply(idleBuffering) }
        // Answered after the cork: the position frozen by a pause reads right at once.
        updateTiming()
    }

    /// New buffer attributes; the server also reconsiders its sink's latency.
    private func apply(_ wanted: Buffering) {
        guard wanted != appliedBuffering, let stream else { return }
        appliedBuffering = wanted
        var attributes = wanted.attributes(sampleRate: sampleRate)
        Self.release(pa_stream_set_buffer_attr(stream, &attributes, nil, nil))
    }

    private func fill() {
        guard state == .ready, let stream, queuedFrames > 0 else { return }
        var writable = pa_stream_writable_size(stream) / 2
        // The server asks for more only once `request` is missing from its queue, which holds
        // what is written but not yet mixed into its sink (whose latency comes on top): keep it
        // full, so it never has to ask (after a rewrite cut it short it would run dry waiting).
        let held = Int(framesWritten - currentHeardFrame()) - sinkLatencyFrames
        writable = max(writable, sampleRate * buffering.targetMilliseconds / 1000 - held)
        var written = 0
        while writable > 0, let chunk = fifo.first {
            let count = min(writable, chunk.count - fifoOffset)
            guard send(chunk[fifoOffset..<fifoOffset + count]) else { break }
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
        onConsumed?(written)
    }

    /// Writes to the server outside the FIFO (a rewrite): as much as it takes, whatever the
    /// server asked for.
    private func write(_ samples: [Int16]) {
        _ = send(samples[...])
    }

    /// One write at the server's write index, or back from it by a pending seek; `gain` applied,
    /// the samples kept in `history`.
    private func send(_ samples: ArraySlice<Int16>) -> Bool {
        guard let stream, !samples.isEmpty else { return false }
        let seek = -pendingSeekFrames * 2
        let r: Int32
        if gain < 1 {
            let scaled = samples.map { Int16((Double($0) * gain).rounded()) }
            r = scaled.withUnsafeBufferPointer { pa_stream_write(stream, $0.baseAddress!, $0.count * 2, nil, seek, PA_SEEK_RELATIVE) }
        } else {
            r = samples.withUnsafeBufferPointer { pa_stream_write(stream, $0.baseAddress!, $0.count * 2, nil, seek, PA_SEEK_RELATIVE) }
        }
        guard r >= 0 else { return false }
        pendingSeekFrames = 0
        history.append((framesWritten, Array(samples)))
        historyFrames += samples.count
        while let first = history.first, historyFrames - first.samples.count >= historyLimit {
            history.removeFirst()
            historyFrames -= first.samples.count
        }
        framesWritten += Int64(samples.count)
        return true
    }

    /// Forgets what `history` holds from `frame` on (it is being replaced).
    private func forgetHistory(from frame: Int64) {
        while let last = history.last, last.frame + Int64(last.samples.count) > frame {
            history.removeLast()
            historyFrames -= last.samples.count
            if last.frame < frame {
                let kept = Array(last.samples[..<Int(frame - last.frame)])
                history.append((last.frame, kept))
                historyFrames += kept.count
                break
            }
        }
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
