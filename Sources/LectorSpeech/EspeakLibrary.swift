import CEspeakNG

/// espeak-ng is opened when first used, never linked (CEspeakNG): the CLI starts without it and
/// what it pulls in. `SpeechEngine` asks here first, so a missing library is a message, not an abort.
public enum EspeakLibrary {
    /// nil once libespeak-ng.so.1 is loaded; otherwise why not, and what to install.
    public static func load() -> String? {
        var error = [CChar](repeating: 0, count: 512)
        guard lector_espeak_open(&error, error.count) != 0 else { return nil }
        return "libespeak-ng cannot be loaded (\(String(decoding: error.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))). "
            + "Fix: apt install libespeak-ng1"
    }
}
