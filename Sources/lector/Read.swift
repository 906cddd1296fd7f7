import ArgumentParser
import Foundation
import LectorBus
import LectorInterface

/// `lector read`: open a book in the daemon and start reading it aloud.
struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a book (EPUB or plain text) aloud, resuming where you stopped.",
        discussion: """
            The book then shows in media controls (MPRIS: org.mpris.MediaPlayer2.lector), so media
            keys, playerctl and the lock screen control it.
            Examples:
              lector read ~/Books/moby-dick.epub
              lector read notes.txt --chapter 3
              lector read novel.epub --from-start
            """)

    @Argument(help: "The book: an .epub or a text file.") var file: String
    @Option(help: "Start at this chapter (1 is the first).") var chapter: Int?
    @Flag(help: "Start from the beginning, ignoring the bookmark.") var fromStart = false

    func run() throws {
        if let chapter, chapter < 1 || chapter > Int(UInt32.max) {
            throw ValidationError("--chapter counts from 1 (and no book has \(chapter) chapters)")
        }
        let url = URL(fileURLWithPath: file).standardizedFileURL
        let client = try DaemonClient()
        _ = try client.callDaemon(path: BusNames.objectPath, interface: "io.github.lector.Narrator1", member: "Open") { writer in
            try writer.append(url.absoluteString)
            try writer.container("a", "{sv}") {
                if let chapter { try writer.entry("chapter", "u") { try $0.append(UInt32(chapter - 1)) } }
                if fromStart { try writer.entry("from-start", "b") { try $0.append(true) } }
            }
        }
        let metadata = try client.property("/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player", "Metadata")
            .readDisplayDictionary()
        print("Reading \(metadata["xesam:album"] ?? url.lastPathComponent), chapter \(metadata["xesam:trackNumber"] ?? "?"): \(metadata["xesam:title"] ?? "")")
    }
}
