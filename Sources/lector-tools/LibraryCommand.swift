import ArgumentParser
import Foundation
import LectorBus
import LectorCommandLine
import LectorCore
import LectorConfig
import LectorInterface
import LectorState

/// `lector library`: the books read, with progress, time left and when each was last heard.
/// Asked of the daemon when one runs (it knows the word heard a moment ago); read from
/// `$XDG_STATE_HOME/lector` otherwise: it never starts a daemon just to list files.
struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "List the books you have read: progress, time left, last listened.",
        discussion: """
            A table on a terminal; tab-separated lines when piped (title, authors, progress %, \
            time left, last listened (ISO 8601), state (open, missing or -), file). \
            A book whose file was moved or deleted is listed as missing, never dropped.

            Examples:
              lector library
              lector library --forget "The Waste Land"     by title, file or identity
            """)

    @Option(name: .long, help: ArgumentHelp("Take this book out of the library (its place is forgotten too).", valueName: "BOOK"))
    var forget: String?

    func validate() throws {
        if let forget, forget.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--forget needs the book: its title, its file or its identity (see lector library)")
        }
    }

    func run() throws {
        if let forget { return try forgetBook(forget) }
        let (rows, problems) = try LibraryRow.load()
        for problem in problems { StandardError.write("lector: \(problem)\n") }
        guard !rows.isEmpty else {
            print("The library is empty: books you read (lector read FILE) are listed here.")
            return
        }
        if isatty(STDOUT_FILENO) != 0 {
            print(LibraryRow.table(rows))
        } else {
            for row in rows { print(row.tabSeparated) }
        }
    }

    /// By the daemon when it runs (the open book stays coherent), else in the files themselves.
    private func forgetBook(_ query: String) throws {
        // A file named on the command line is meant as that file, wherever the shell is.
        let named = FileManager.default.fileExists(atPath: query) ? URL(fileURLWithPath: query).standardizedFileURL.path : query
        let path: String
        do {
            // No session bus at all (a console, ssh): no daemon either; the files are there.
            guard let client = try? DaemonClient() else { throw DaemonClient.NotRunning() }
            path = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "ForgetBook",
                                         start: false) { try $0.append(named) }.readString()
        } catch is DaemonClient.NotRunning {
            do {
                path = try LibraryShelf(stateDirectory: RecentBookStore.defaultDirectory()).forget(named).path
            } catch let error as LectorError {
                throw CLIError(error.message + " (\(error.busName))")
            }
        }
        print("Forgot \(path): it is no longer in the library, and its place is forgotten.")
    }
}

/// `lector library`'s side of a row: the files' view when no daemon runs, and the two layouts.
extension LibraryRow {
    /// The daemon's view if it runs, else the files' (with the configured default rate).
    static func load() throws -> (rows: [LibraryRow], problems: [String]) {
        do {
            guard let client = try? DaemonClient() else { throw DaemonClient.NotRunning() }
            return try fromDaemon(client, start: false)
        } catch is DaemonClient.NotRunning {
            let (books, problems) = LibraryShelf(stateDirectory: RecentBookStore.defaultDirectory())
                .list(defaultRate: configuredRate())
            return (books.map(LibraryRow.init(book:)), problems)
        }
    }

    /// `[speech] rate` from config.toml (1.0 when there is none or it is invalid: `lector
    /// doctor` reports that).
    private static func configuredRate() -> Double {
        let path = Configuration.defaultPath(environment: ProcessInfo.processInfo.environment)
        guard let data = FileManager.default.contents(atPath: path),
              let configuration = try? Configuration.parse(utf8: Array(data), file: path) else { return 1 }
        return configuration.speech.rate
    }

    init(book: LibraryBook) {
        self.init(title: book.displayTitle, authors: book.entry.authors ?? [], path: book.entry.path, isOpen: false,
                  missing: book.missing, progress: book.progress, timeLeft: book.timeLeft, listenedAt: book.listenedAt)
    }

    var progressText: String { progress.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? "" }
    var timeLeftText: String { timeLeft.map { DurationText.clock(seconds: Int($0)) } ?? "" }
    var state: String { missing ? "missing" : isOpen ? "open" : "-" }

    var tabSeparated: String {
        let listened = listenedAt.map { ISO8601DateFormatter().string(from: $0) } ?? ""
        return [title, authors.joined(separator: "; "), progressText, timeLeftText, listened, state, path]
            .map { $0.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
            .joined(separator: "\t")
    }

    /// Columns padded to their widest cell; the open book marked ▶, a missing one with its file.
    static func table(_ rows: [LibraryRow]) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let header = ["", "TITLE", "AUTHORS", "PROGRESS", "LEFT", "LAST LISTENED"]
        let cells = rows.map { row -> [String] in
            let title = row.title.count > 40 ? row.title.prefix(39) + "…" : row.title
            let authors = row.authors.joined(separator: ", ")
            return [row.isOpen ? "▶" : " ", String(title), authors.count > 24 ? authors.prefix(23) + "…" : authors,
                    row.progressText.isEmpty ? "?" : row.progressText, row.timeLeftText.isEmpty ? "?" : row.timeLeftText,
                    row.listenedAt.map { formatter.string(from: $0) } ?? "never"]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var lines = [line(header)]
        for (row, cell) in zip(rows, cells) {
            lines.append(line(cell))
            if row.missing { lines.append("    missing: \(row.path) (moved or deleted; open it where it is now, or --forget it)") }
        }
        return lines.joined(separator: "\n")
    }
}
