import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorCore
import LectorInterface

/// `lector read`: open a book in the daemon and start reading it aloud.
struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read a book (EPUB or plain text) aloud, resuming where you stopped.",
        discussion: """
            The book then shows in media controls (MPRIS: org.mpris.MediaPlayer2.lector), so media \
            keys, playerctl and the lock screen control it. Without a file, the book read last \
            is resumed at its bookmark (also after a restart).

            Examples:
              lector read ~/Books/moby-dick.epub
              lector read                          the book read last, where you stopped
              lector read notes.txt --chapter 3
              lector read novel.epub --from-start
              lector read novel.epub --rate 1.4 --voice en-gb

            The rate and voice given here (or set later: lector rate, Narrator1.Voice) are \
            remembered for this book; other books keep config.toml's defaults.
            """)

    @Argument(help: "The book: an .epub or a text file, or the title of a book in the library. Without it, the book read last.")
    var file: String?
    @Option(name: [.short, .long], help: "Start at this chapter (1 is the first).") var chapter: Int?
    @Flag(help: "Start from the beginning, ignoring the bookmark.") var fromStart = false
    @Option(name: [.short, .long], help: "Speech rate for this book, 1.0 is normal (0.5...2.5); remembered for it.")
    var rate: Double?
    @Option(name: [.short, .long], help: "espeak-ng voice for this book (lector voices); remembered for it.")
    var voice: String?

    func validate() throws {
        if let chapter, chapter < 1 || chapter > Int(UInt32.max) {
            throw ValidationError("--chapter counts from 1 (and no book has \(chapter) chapters)")
        }
        if file == nil, chapter != nil || fromStart || rate != nil || voice != nil {
            throw ValidationError("--chapter, --from-start, --rate and --voice need the book's FILE (without one, the book read last "
                                  + "resumes where it was; lector rate changes the speed of the book being read)")
        }
        try Say.check("--rate", rate, in: PlayerState.rateRange)
        if let voice, voice.allSatisfy(\.isWhitespace) { throw ValidationError("--voice needs a voice name (lector voices lists them)") }
    }

    func run() throws {
        let client = try DaemonClient()
        let name: String
        if let file {
            // Not a file here: a title from the library (`lector library`) names its file.
            let shelved = FileManager.default.fileExists(atPath: file) ? nil : try LibraryRow.find(title: file, in: LibraryRow.fromDaemon(client, start: true).rows)
            let url = shelved.map { URL(fileURLWithPath: $0.path) } ?? URL(fileURLWithPath: file).standardizedFileURL
            name = shelved?.title ?? url.lastPathComponent
            do {
                _ = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "Open") { writer in
                    try writer.append(url.absoluteString)
                    try writer.container("a", "{sv}") {
                        if let chapter { try writer.entry("chapter", "u") { try $0.append(UInt32(chapter - 1)) } }
                        if fromStart { try writer.entry("from-start", "b") { try $0.append(true) } }
                        if let rate { try writer.entry("rate", "d") { try $0.append(rate) } }
                        if let voice { try writer.entry("voice", "s") { try $0.append(voice) } }
                    }
                }
            } catch let error as CLIError where shelved?.missing == true {
                throw CLIError("\"\(name)\" is in the library, but its file is gone (moved or deleted): \(error). Its place is kept: "
                               + "open it where it is now with lector read FILE, or take it out with lector library --forget \"\(name)\"")
            }
        } else {
            name = "the book read last"
            _ = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "Resume")
        }
        let metadata = try client.property(MPRISNames.path, MPRISNames.player, "Metadata").readDisplayDictionary()
        print("Reading \(metadata["xesam:album"] ?? name), chapter \(metadata["xesam:trackNumber"] ?? "?"): \(metadata["xesam:title"] ?? "")")
    }
}
