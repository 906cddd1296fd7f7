import CPulse
import Glibc

/// A one-off, blocking look at the sound server for `lector doctor`: connect (to `PULSE_SERVER`
/// or the user's default server, never autospawning one), read the server info and count the
/// sinks, all within a deadline. Uses its own `pa_mainloop`; not for the daemon's event loop.
public enum SoundServerProbe {
    public struct Report: Equatable, Sendable {
        /// e.g. "pulseaudio" or "PulseAudio (on PipeWire 0.3.65)".
        public var serverName: String
        public var serverVersion: String
        /// The server the context connected to, e.g. "/run/user/1000/pulse/native".
        public var address: String
        public var defaultSink: String?
        public var sinkCount: Int
    }

    public enum Outcome: Equatable, Sendable {
        case reachable(Report)
        /// Why not, in libpulse's words (e.g. "Connection refused"), or "timed out after N ms".
        case unreachable(String)
        /// libpulse itself is missing or broken (`PulseLibrary`'s message, with its fix).
        case noLibrary(String)
    }

    public static func probe(timeoutMilliseconds: Int = 3000, clientName: String = "lector doctor") -> Outcome {
        if let failure = PulseLibrary.load() { return .noLibrary(failure) }
        guard let mainloop = pa_mainloop_new() else { return .unreachable("could not create a PulseAudio main loop") }
        defer { pa_mainloop_free(mainloop) }
        guard let context = pa_context_new(pa_mainloop_get_api(mainloop), clientName) else {
            return .unreachable("could not create a PulseAudio context")
        }
        defer {
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        let deadline = monotonicMilliseconds() + timeoutMilliseconds
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            return .unreachable(String(cString: pa_strerror(pa_context_errno(context))))
        }

        // Connect.
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                return .unreachable(String(cString: pa_strerror(pa_context_errno(context))))
            }
            guard iterate(mainloop, until: deadline) else { return .unreachable("timed out after \(timeoutMilliseconds) ms") }
        }

        // Server info and sinks.
        let results = Results()
        let userdata = Unmanaged.passUnretained(results).toOpaque()
        let info = pa_context_get_server_info(context, { _, info, userdata in
            let results = Unmanaged<Results>.fromOpaque(userdata!).takeUnretainedValue()
            guard let info else { return }
            results.name = info.pointee.server_name.map { String(cString: $0) } ?? "?"
            results.version = info.pointee.server_version.map { String(cString: $0) } ?? "?"
            results.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
        }, userdata)
        let sinks = pa_context_get_sink_info_list(context, { _, _, eol, userdata in
            let results = Unmanaged<Results>.fromOpaque(userdata!).takeUnretainedValue()
            if eol == 0 { results.sinks += 1 }
        }, userdata)
        defer {
            if let info { pa_operation_unref(info) }
            if let sinks { pa_operation_unref(sinks) }
        }
        guard let info, let sinks else { return .unreachable(String(cString: pa_strerror(pa_context_errno(context)))) }
        while pa_operation_get_state(info) == PA_OPERATION_RUNNING || pa_operation_get_state(sinks) == PA_OPERATION_RUNNING {
            guard pa_context_get_state(context) == PA_CONTEXT_READY else {
                return .unreachable(String(cString: pa_strerror(pa_context_errno(context))))
            }
            guard iterate(mainloop, until: deadline) else {
                return .unreachable("connected, but the server did not answer within \(timeoutMilliseconds) ms")
            }
        }
        let address = pa_context_get_server(context).map { String(cString: $0) } ?? "?"
        return .reachable(Report(serverName: results.name ?? "?", serverVersion: results.version ?? "?",
                                 address: address, defaultSink: results.defaultSink, sinkCount: results.sinks))
    }

    private final class Results {
        var name: String?
        var version: String?
        var defaultSink: String?
        var sinks = 0
    }

    /// One round of the main loop, waiting at most until `deadline`; false once it has passed.
    private static func iterate(_ mainloop: OpaquePointer, until deadline: Int) -> Bool {
        let left = deadline - monotonicMilliseconds()
        guard left > 0 else { return false }
        guard pa_mainloop_prepare(mainloop, Int32(clamping: left * 1000)) >= 0,
              pa_mainloop_poll(mainloop) >= 0,
              pa_mainloop_dispatch(mainloop) >= 0 else { return false }
        return true
    }

    private static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }
}
