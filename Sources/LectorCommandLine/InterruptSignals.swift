import Glibc

/// The signal that interrupted the command (0: none yet). Written only by `noteInterrupt`, a
/// signal handler, which may do nothing but store a number.
nonisolated(unsafe) private var interruptSignal: sig_atomic_t = 0

private func noteInterrupt(_ signal: Int32) { interruptSignal = signal }

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP while a command waits on the daemon: noted instead of
/// ending the process, so that `lector say --wait` can cancel its speech before it exits. Without
/// SA_RESTART, a blocking wait returns EINTR at once.
///
/// ```swift
/// let interrupts = InterruptSignals()              // before Speak: a Ctrl-C during the call counts too
/// if let signal = interrupts.received { … cancel … exit(128 + signal) }
/// ```
public final class InterruptSignals {
    static let caught = [SIGINT, SIGTERM, SIGHUP]

    public init() {
        interruptSignal = 0
        for signal in Self.caught {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = noteInterrupt
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }

    /// The signal received so far, if any.
    public var received: Int32? { interruptSignal == 0 ? nil : Int32(interruptSignal) }

    /// Back to the default actions: a second Ctrl-C ends the command at once.
    public func restoreDefaults() {
        for signal in Self.caught { Glibc.signal(signal, SIG_DFL) }
    }
}
