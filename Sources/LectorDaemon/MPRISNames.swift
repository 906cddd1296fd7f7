/// Where the narrator lives on the bus: MPRIS for media keys and shells, plus Lector's own
/// interface for what MPRIS cannot say (the book, why it paused, what is being heard).
enum MPRISNames {
    static let service = "org.mpris.MediaPlayer2.lector"
    static let path = "/org/mpris/MediaPlayer2"
    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let narrator = "io.github.lector.Narrator1"
    static let desktopEntry = "io.github.lector.Lector"
    static let mimeTypes = ["application/epub+zip", "text/plain", "text/markdown"]
}
