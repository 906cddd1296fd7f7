import LectorInterface
import ArgumentParser
import FoundationEssentials
import Glibc
import LectorBus
import LectorCommandLine
import LectorCore

/// `lector status`: what is being read, where, and (with --follow) as it goes.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the book, chapter and position being read.",
        discussion: """
            With --follow: a live progress bar on a terminal, one line per change otherwise. \
            It never starts the daemon: without one it says that Lector is not running.

            Example: lector status --follow
            """)

    @Flag(name: [.short, .long], help: "Keep watching until interrupted.") var follow = false

    static let notRunning = "Lector is not running."

    func run() throws {
        let client = try DaemonClient()
        var last = ""
        let terminal = isatty(STDOUT_FILENO) != 0
        while true {
            let snapshot: Snapshot?
            do {
                snapshot = try Snapshot(client)
            } catch is DaemonClient.NotRunning {
                snapshot = nil
            }
            if !follow {
                print(snapshot?.lines ?? Self.notRunning)
                return
            }
            if terminal {
                print("\r\u{1B}[2K" + (snapshot?.progressLine ?? Self.notRunning), terminator: "")
                fflush(nil)   // every stream: the line is seen at once, even piped
            } else if (snapshot?.identity ?? "") != last || last.isEmpty {
                print(snapshot?.plainLine ?? Self.notRunning)
                fflush(nil)   // every stream: the line is seen at once, even piped
                last = snapshot?.identity ?? "-"
            }
            usleep(terminal ? 250_000 : 500_000)
        }
    }

    /// One reading of the player's properties.
    struct Snapshot {
        var status: String
        var metadata: [String: String]
        var position: Int64
        /// Narrator1.SleepTimer: {} when off.
        var sleep: [String: String] = [:]
        /// Narrator1.Book: chapter-count, and the whole book's progress and time left.
        var book: [String: String] = [:]
        var rate = 1.0

        /// Throws `DaemonClient.NotRunning` rather than starting a daemon to ask.
        init(_ client: DaemonClient) throws {
            let player = "org.mpris.MediaPlayer2.Player"
            status = try client.property("/org/mpris/MediaPlayer2", player, "PlaybackStatus", start: false).readDisplayVariant()
            metadata = try client.property("/org/mpris/MediaPlayer2", player, "Metadata", start: false).readDisplayDictionary()
            position = Int64(try client.property("/org/mpris/MediaPlayer2", player, "Position", start: false)
                .readDisplayVariant()) ?? 0
            sleep = try client.property(BusNames.objectPath, MPRISNames.narrator, "SleepTimer", start: false).readDisplayDictionary()
            book = try client.property(BusNames.objectPath, MPRISNames.narrator, "Book", start: false).readDisplayDictionary()
            rate = Double(try client.property("/org/mpris/MediaPlayer2", player, "Rate", start: false).readDisplayVariant()) ?? 1
        }

        var length: Int64 { Int64(metadata["mpris:length"] ?? "") ?? 0 }
        var hasBook: Bool { metadata["xesam:album"] != nil }

        var lines: String {
            guard hasBook else { return "No book is open. Start one with: lector read FILE" }
            let author = metadata["xesam:artist"].map { "\nAuthor:   \($0)" } ?? ""   // left out when there is none
            return """
                Book:     \(metadata["xesam:album"] ?? "")\(author)
                Chapter:  \(metadata["xesam:trackNumber"] ?? "?") of \(book["chapter-count"] ?? "?"): \(metadata["xesam:title"] ?? "")
                Position: \(Self.clock(position)) of \(Self.clock(length)) (\(status))
                Speed:    \(Rate.format(rate))
                Progress: \(wholeBook)
                """ + (sleep.isEmpty ? "" : "\nSleep:    " + Sleep.describe(sleep)) + (voiceWarning.map { "\nWarning:  " + $0 } ?? "")
                + (book["voice-problem"].map { "\nWarning:  " + $0 } ?? "")
        }

        /// Narrator1.Book's `voice-warning` (the voice cannot read this book) and what to do.
        var voiceWarning: String? {
            guard let warning = book["voice-warning"] else { return nil }
            return warning + "." + (CommandText.voiceFix(suggested: book["suggested-voice"], url: book["url"]).map { " " + $0 } ?? "")
        }

        /// "37% of the book, 1:24:10 left at this speed", or why that is not known yet.
        var wholeBook: String {
            guard let progress = book["progress"].flatMap(Double.init), let left = book["time-left"].flatMap(Int64.init) else {
                return "of the whole book: not known until every chapter has been read from it"
            }
            return "\(Int((progress * 100).rounded(.down)))% of the book, \(Self.clock(left)) left at this speed"
        }

        /// Changes only when something a reader cares about changes (not every second).
        var identity: String { "\(status)|\(metadata["mpris:trackid"] ?? "")|\(position / 10_000_000)|\(sleepText)" }

        /// " sleep 19:32 left" while a sleep timer runs (minutes only, so a piped --follow does not
        /// print a line a second).
        var sleepText: String {
            guard let mode = sleep["mode"] else { return "" }
            if mode == "chapter" { return " sleep: end of chapter" + (sleep["fading"] == "true" ? ", fading" : "") }
            let minutes = (Int64(sleep["remaining"] ?? "") ?? 0) / 60_000_000
            return sleep["fading"] == "true" ? " sleep: fading" : " sleep: \(minutes + 1) min"
        }

        var plainLine: String {
            guard hasBook else { return "stopped: no book" }
            return "\(status.lowercased()) chapter \(metadata["xesam:trackNumber"] ?? "?") \"\(metadata["xesam:title"] ?? "")\" \(Self.clock(position))/\(Self.clock(length))\(sleepText)"
        }

        var progressLine: String {
            guard hasBook else { return "No book is open" }
            let width = 30
            let filled = length > 0 ? Int(Double(width) * min(1, Double(position) / Double(length))) : 0
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let symbol = status == "Playing" ? "▶" : status == "Paused" ? "⏸" : "■"
            let sleeping = sleep.isEmpty ? "" : " ☾ " + Sleep.describe(sleep)
            let whole = book["progress"].flatMap(Double.init).map { " book \(Int(($0 * 100).rounded(.down)))%" } ?? ""
            return "\(symbol) \(metadata["xesam:trackNumber"] ?? "?")/\(book["chapter-count"] ?? "?"). \(metadata["xesam:title"] ?? "") \(bar) "
                + "\(Self.clock(position))/\(Self.clock(length)) \(Rate.format(rate))\(whole)\(sleeping)"
        }

        /// "1:05" or "1:02:05" for a time in microseconds.
        static func clock(_ microseconds: Int64) -> String { DurationText.clock(seconds: Int(microseconds / 1_000_000)) }
    }
}
