/// Where Lector lives on the session bus: the names every client, the daemon and the tests share.
///
/// ```swift
/// bus.call(destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface, member: "Speak")
/// ```
public enum BusNames {
    public static let service = "io.github.lector.Lector1"
    public static let objectPath = "/io/github/lector/Lector1"
    public static let interface = "io.github.lector.Lector1"
    public static let version = "0.1.0"
}

/// Where the narrator lives on the bus: MPRIS for media keys and shells, plus Lector's own
/// interface for what MPRIS cannot say (the book, why it paused, what is being heard).
public enum MPRISNames {
    public static let service = "org.mpris.MediaPlayer2.lector"
    public static let path = "/org/mpris/MediaPlayer2"
    public static let root = "org.mpris.MediaPlayer2"
    public static let player = "org.mpris.MediaPlayer2.Player"
    public static let trackList = "org.mpris.MediaPlayer2.TrackList"
    public static let narrator = "io.github.lector.Narrator1"
    public static let desktopEntry = "io.github.lector.Lector"
    public static let mimeTypes = ["application/epub+zip", "text/plain", "text/markdown"]
}

/// The read-along page's server (`lector view`): one per session, found by this name; its `Url`
/// property (with the page's token) is readable only on the user's own session bus.
public enum ViewNames {
    public static let service = "io.github.lector.View1"
    public static let path = "/io/github/lector/View1"
    public static let interface = "io.github.lector.View1"
}

/// The option keys of `Speak(s, a{sv})`, with the D-Bus type each takes.
public enum SpeakOption: String, CaseIterable, Sendable {
    case language, voice, rate, pitch, volume, priority, digits, ssml
    case ensureAudible = "ensure-audible"

    /// The variant's D-Bus type, e.g. "d" for rate.
    public var signature: String {
        switch self {
        case .language, .voice, .priority, .digits: return "s"
        case .rate, .pitch, .volume: return "d"
        case .ssml, .ensureAudible: return "b"
        }
    }
}

/// The option keys of `Narrator1.Open(s, a{sv})`.
public enum OpenOption: String, CaseIterable, Sendable {
    /// u: start at this chapter (0-based).
    case chapter
    /// b: ignore the bookmark.
    case fromStart = "from-start"
    /// b: start playing (default true).
    case play
}
