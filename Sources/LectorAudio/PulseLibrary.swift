import CPulse

/// libpulse is opened when first used, never linked (CPulse): the CLI starts without it. Whoever
/// starts using it asks here first, so a missing or broken library is a message with its fix.
public enum PulseLibrary {
    /// nil once libpulse.so.0 is loaded; otherwise why not, and what to install.
    public static func load() -> String? {
        var error = [CChar](repeating: 0, count: 512)
        guard lector_pulse_open(&error, error.count) != 0 else { return nil }
        return "libpulse cannot be loaded (\(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))). "
            + "Fix: apt install libpulse0"
    }
}
