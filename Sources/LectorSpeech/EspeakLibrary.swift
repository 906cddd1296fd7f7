import CEspeakNG

/// espeak-ng is opened when first used, never linked (CEspeakNG): lector-tools and the daemon start without
/// it and what it pulls in. `SpeechEngine` asks here first, so a missing library is a message, not an abort.
public enum EspeakLibrary {
    /// nil once libespeak-ng.so.1 is loaded; otherwise why not, and what to install.
    public static func load() -> String? { lector_espeak_open().map { String(cString: $0) } }
}
