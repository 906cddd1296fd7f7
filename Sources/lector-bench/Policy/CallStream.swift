import CPulse
import Foundation
import LectorLoop

/// A VoIP call's playback stream, in process: `media.role=phone`, connected uncorked (as a
/// call app starts it, so it counts as a call from its first appearance), fed with digital
/// silence from the write callback. Loop thread only; `end()` (or deinit) disconnects it.
final class CallStream {
    static let name = "policy-bench-call"

    private var stream: OpaquePointer?
    /// CLOCK_MONOTONIC (ns) read right before pa_stream_connect_playback.
    private(set) var connectedAt: UInt64 = 0
    private static let zeros = [UInt8](repeating: 0, count: 16_384)

    /// Creates the stream and calls pa_stream_connect_playback: the moment a call starts.
    init(context: OpaquePointer, sampleRate: UInt32 = 22_050) throws {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: sampleRate, channels: 1)
        let proplist = pa_proplist_new()
        defer { pa_proplist_free(proplist) }
        pa_proplist_sets(proplist, PA_PROP_MEDIA_ROLE, "phone")
        pa_proplist_sets(proplist, PA_PROP_MEDIA_NAME, Self.name)
        pa_proplist_sets(proplist, PA_PROP_APPLICATION_NAME, Self.name)
        guard let stream = pa_stream_new_with_proplist(context, Self.name, &spec, nil, proplist) else {
            throw BenchError("pa_stream_new (call): \(String(cString: pa_strerror(pa_context_errno(context))))")
        }
        self.stream = stream
        pa_stream_set_write_callback(stream, { stream, bytes, _ in
            guard let stream else { return }
            var left = bytes
            while left > 0 {
                let count = min(left, CallStream.zeros.count)
                let r = CallStream.zeros.withUnsafeBytes {
                    pa_stream_write(stream, $0.baseAddress, count, nil, 0, PA_SEEK_RELATIVE)
                }
                if r < 0 { return }
                left -= count
            }
        }, nil)
        // 40 ms of buffer, like a VoIP client; no START_CORKED.
        let bytesPerMillisecond = sampleRate * 2 / 1000
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: bytesPerMillisecond * 40,
                                        prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        connectedAt = monotonicNanoseconds()
        if pa_stream_connect_playback(stream, nil, &attributes, PA_STREAM_ADJUST_LATENCY, nil, nil) < 0 {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            end()
            throw BenchError("pa_stream_connect_playback (call): \(reason)")
        }
    }

    /// The call ends: the stream is disconnected (its sink input goes away).
    func end() {
        guard let stream else { return }
        self.stream = nil
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }

    deinit { end() }
}
