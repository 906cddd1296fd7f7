import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorInterface

/// `lector chapters`: the open book's chapters, with their durations at the current rate and
/// the one being read marked. Read-only: it never starts a daemon.
struct Chapters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chapters",
        abstract: "List the chapters of the book being read.",
        discussion: """
            Number, title (indented by its depth in the table of contents) and duration at the \
            current speed (estimated from the text, ? until the chapter has been read from the \
            book); the chapter being read is marked ▶. Piped: tab-separated (number, depth, \
            title, seconds, current).

            Example: lector chapters; then lector read BOOK --chapter N
            """)

    func run() throws {
        let client = try DaemonClient()
        let book: [String: String]
        do {
            book = try client.property(BusNames.objectPath, MPRISNames.narrator, "Book", start: false).readDisplayDictionary()
        } catch is DaemonClient.NotRunning {
            throw CLIError(Status.notRunning + " Start a book with: lector read FILE")
        }
        guard book["title"] != nil else { throw CLIError("No book is open. Start one with: lector read FILE") }
        let reply = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "GetChapters", start: false)
        let chapters = try reply.readStructArray("sut") {
            (title: try reply.readString(), depth: Int(try reply.readUInt32()), length: try reply.readUInt64())
        }
        let rate = Double(try client.property(MPRISNames.path, MPRISNames.player, "Rate", start: false).readDisplayVariant()) ?? 1
        let current = Int(book["chapter"] ?? "") ?? -1
        let terminal = isatty(STDOUT_FILENO) != 0
        var rows: [[String]] = []
        for (index, chapter) in chapters.enumerated() {
            let seconds = chapter.length > 0 ? Double(chapter.length) / 1e6 / max(rate, 0.01) : nil
            if terminal {
                let indent = String(repeating: "  ", count: min(chapter.depth, 6))
                rows.append([index == current ? "▶" : " ", "\(index + 1)", indent + chapter.title,
                             seconds.map { Status.Snapshot.clock(Int64($0 * 1e6)) } ?? "?"])
            } else {
                rows.append(["\(index + 1)", "\(chapter.depth)", String(chapter.title.map { $0 == "\t" ? " " : $0 }),
                             seconds.map { String(Int($0.rounded())) } ?? "", index == current ? "current" : ""])
            }
        }
        if terminal {
            print("\(book["title"] ?? ""): \(chapters.count) chapter\(chapters.count == 1 ? "" : "s"), durations at \(Rate.format(rate))")
            print(Table.render(header: ["", "#", "TITLE", "DURATION"], rows: rows))
        } else {
            rows.forEach { print($0.joined(separator: "\t")) }
        }
    }
}
