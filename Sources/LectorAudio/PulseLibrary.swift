import CPulse

/// libpulse is opened when first used, never linked (CPulse): lector-tools and the daemon start without it. Whoever
/// starts using it asks here first, so a missing or broken library is a message with its fix.
public enum PulseLibrary {
    /// nil once libpulse.so.0 is loaded; otherwise why not, and what to install.
    public static func load() -> String? { lector_pulse_open().map { String(cString: $0) } }
}
