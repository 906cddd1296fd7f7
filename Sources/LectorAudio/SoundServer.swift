import CLectorShim
import CPulse
import LectorLoop

/// The connection to PulseAudio (or pipewire-pulse), driven by the daemon's sd-event loop.
///
/// Owned by the event loop thread. Reconnects by itself after the server goes away, every
/// `retrySeconds` (a timer runs only while the server is missing: no wakeups otherwise).
public final class SoundServer {
    public enum State: Equatable {
        case connecting
        case ready
        case unavailable(String)
    }

    public static let retrySeconds: UInt64 = 1

    public private(set) var state: State = .connecting {
        didSet { if state != oldValue { onStateChange?(state) } }
    }
    public var onStateChange: ((State) -> Void)?
    /// `pa_context *` while ready.
    public var context: OpaquePointer? { state == .ready ? current : nil }

    private let api: UnsafeMutablePointer<pa_mainloop_api>
    private let properties: [String: String]
    private var current: OpaquePointer?
    private var retry: EventSource!

    public init(loop: EventLoop, properties: [String: String]) throws {
        guard let api = lector_pulse_api_new(loop.event) else { throw SystemError(errno: 12, "pa_mainloop_api") }
        self.api = api
        self.properties = properties
        retry = try loop.timer { [unowned self] in self.connect() }
    }

    deinit {
        disconnect()
        lector_pulse_api_free(api)
    }

    /// Starts connecting (to `PULSE_SERVER` or the user's default server).
    public func connect() {
        disconnect()
        state = .connecting
        let proplist = Proplist(properties)
        guard let context = pa_context_new_with_proplist(api, properties[PA_PROP_APPLICATION_NAME] ?? "Lector",
                                                         proplist.pointer) else {
            fail("could not create a PulseAudio context")
            return
        }
        current = context
        pa_context_set_state_callback(context, { context, userdata in
            Unmanaged<SoundServer>.fromOpaque(userdata!).takeUnretainedValue().stateChanged(context!)
        }, Unmanaged.passUnretained(self).toOpaque())
        // A synchronous failure may already have run stateChanged → fail(), which released the context.
        if pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0, current == context {
            fail(String(cString: pa_strerror(pa_context_errno(context))))
        }
    }

    private func stateChanged(_ context: OpaquePointer) {
        guard context == current else { return }
        switch pa_context_get_state(context) {
        case PA_CONTEXT_READY:
            state = .ready
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            fail(String(cString: pa_strerror(pa_context_errno(context))))
        default:
            break
        }
    }

    private func fail(_ reason: String) {
        disconnect()
        state = .unavailable(reason)
        retry.schedule(after: Self.retrySeconds * 1_000_000)
    }

    private func disconnect() {
        guard let context = current else { return }
        current = nil
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
    }
}
