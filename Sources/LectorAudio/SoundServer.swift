import CPulseLoop
import CPulse
import LectorLoop

/// The connection to PulseAudio (or pipewire-pulse), driven by the daemon's sd-event loop, and
/// the owner of everything that lives on that connection: its playback streams and the mirror.
///
/// Before the context is freed (a lost server, a reconnect, `close()`), the streams and the
/// mirror are disarmed first, so libpulse's synchronous callbacks during the disconnect reach
/// nobody. Reconnects by itself after the server goes away, every `retrySeconds` (a timer runs
/// only while the server is missing: no wakeups otherwise).
///
/// ```swift
/// let server = try SoundServer(loop: loop, properties: ["application.name": "Lector"])
/// server.onStateChange = { state in if state == .ready { stream = try? server.makeStream(sampleRate: 22050, properties: [:]) } }
/// server.connect()
/// ...
/// server.close()   // streams, mirror, then the context
/// ```
@MainActor
public final class SoundServer {
    public enum State: Equatable, Sendable {
        case connecting
        case ready
        case unavailable(String)
    }

    public static let retrySeconds: UInt64 = 1

    public private(set) var state: State = .connecting {
        didSet { if state != oldValue { onStateChange?(state) } }
    }
    public var onStateChange: (@MainActor (State) -> Void)?
    /// `pa_context *` while ready.
    public var context: OpaquePointer? { state == .ready ? current : nil }
    public private(set) var isClosed = false

    private let api: UnsafeMutablePointer<pa_mainloop_api>
    private let properties: [String: String]
    private var current: OpaquePointer?
    private var retry: EventSource?
    /// Streams made on the current context; invalidated before it goes.
    private var streams: [WeakStream] = []
    /// Attached to each new context, detached before it goes.
    private weak var mirror: SoundServerMirror?
    /// For the streams' timers.
    private let loop: EventLoop

    public init(loop: EventLoop, properties: [String: String]) throws {
        guard let api = lector_pulse_api_new(loop.event) else { throw SystemError(errno: 12, "pa_mainloop_api") }
        self.api = api
        self.loop = loop
        self.properties = properties
        retry = try loop.timer { [weak self] in self?.connect() }
    }

    isolated deinit {
        close()
        lector_pulse_api_free(api)
    }

    /// Starts connecting (to `PULSE_SERVER` or the user's default server).
    public func connect() {
        guard !isClosed else { return }
        disconnect()
        if let failure = PulseLibrary.load() { return fail(failure) }
        state = .connecting
        let proplist = Proplist(properties)
        guard let context = pa_context_new_with_proplist(api, properties[PA_PROP_APPLICATION_NAME] ?? "Lector",
                                                         proplist.pointer) else {
            fail("could not create a PulseAudio context")
            return
        }
        current = context
        pa_context_set_state_callback(context, { context, userdata in
            let me = Unmanaged<SoundServer>.fromOpaque(userdata!)
            let state = pa_context_get_state(context)
            let errno = pa_context_errno(context)
            let id = UInt(bitPattern: context)
            MainActor.assumeIsolated { me.takeUnretainedValue().stateChanged(id, state, errno) }
        }, Unmanaged.passUnretained(self).toOpaque())
        // A synchronous failure may already have run stateChanged → fail(), which released the context.
        if pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0, current == context {
            fail(String(cString: pa_strerror(pa_context_errno(context))))
        }
    }

    /// Sends the requests libpulse holds for its next loop turn (a cork, a flush) now, so that
    /// the sound stops before a bus handler's signals and reply go out. Only from outside
    /// libpulse (the daemon calls it once a bus handler has returned): the callbacks the
    /// connection has waiting may run in it, and libpulse is not reentrant. Inside a callback
    /// the loop dispatched it does nothing (the requests go out next turn, as before). Returns
    /// how many of libpulse's deferred events ran.
    @discardableResult
    public func sendWaitingRequests() -> Int {
        guard current != nil else { return 0 }
        return Int(lector_pulse_api_flush(api))
    }

    /// A playback stream on the current context, owned (disarmed and freed) by this server.
    public func makeStream(sampleRate: Int, properties: [String: String],
                           buffering: PlaybackStream.Buffering = .announcement,
                           idleBuffering: PlaybackStream.Buffering? = .idle) throws -> PlaybackStream {
        guard let context else { throw SystemError(errno: 107, "the sound server is not connected") }
        let stream = try PlaybackStream(context: context, sampleRate: sampleRate, properties: properties,
                                        buffering: buffering, idleBuffering: idleBuffering, loop: loop)
        streams.removeAll { $0.stream == nil }
        streams.append(WeakStream(stream: stream))
        return stream
    }

    /// Keeps `mirror` attached to every connection (now, if ready) and detaches it before each goes.
    public func attach(_ mirror: SoundServerMirror) {
        self.mirror = mirror
        if let context { mirror.attach(context: context) }
    }

    /// Waits (on the loop) until the server has carried out every request sent so far, e.g. the
    /// volume restores of a teardown, then calls `done` (at once when there is nothing to wait for
    /// or no server). The caller bounds the wait with a timer of its own.
    public func drain(_ done: @escaping @MainActor () -> Void) {
        guard let context, pa_context_get_state(context) == PA_CONTEXT_READY else { return done() }
        let box = Unmanaged.passRetained(DrainRequest(done)).toOpaque()
        guard let operation = pa_context_drain(context, { _, userdata in
            let request = Unmanaged<DrainRequest>.fromOpaque(userdata!)
            MainActor.assumeIsolated { request.takeRetainedValue().done() }
        }, box) else {
            Unmanaged<DrainRequest>.fromOpaque(box).release()
            return done()
        }
        pa_operation_unref(operation)
    }

    /// Streams, mirror, then the context; no reconnect after this. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        retry?.close()
        retry = nil
        disconnect()
        onStateChange = nil
    }

    private func stateChanged(_ id: UInt, _ contextState: pa_context_state_t, _ errno: Int32) {
        guard let current, UInt(bitPattern: current) == id else { return }
        switch contextState {
        case PA_CONTEXT_READY:
            state = .ready
            if let mirror { mirror.attach(context: current) }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            fail(String(cString: pa_strerror(errno)))
        default:
            break
        }
    }

    private func fail(_ reason: String) {
        disconnect()
        state = .unavailable(reason)
        retry?.schedule(after: Self.retrySeconds * 1_000_000)
    }

    /// Everything on the context first (their callbacks fire synchronously inside
    /// `pa_context_disconnect` otherwise), then the context.
    private func disconnect() {
        guard let context = current else { return }
        current = nil
        for entry in streams { entry.stream?.invalidate() }
        streams = []
        mirror?.detach()
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
    }

    private struct WeakStream {
        weak var stream: PlaybackStream?
    }

    private final class DrainRequest {
        let done: @MainActor () -> Void
        init(_ done: @escaping @MainActor () -> Void) { self.done = done }
    }
}
