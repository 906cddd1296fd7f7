import ArgumentParser
import Foundation
import LectorBus
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
        for problem in problems { FileHandle.standardError.write(Data("lector: \(problem)\n".utf8)) }
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

/// One line of `lector library`, from the daemon's `GetLibrary` or from the files.
struct LibraryRow {
    var title: String
    var authors: [String]
    var path: String
    var isOpen: Bool
    var missing: Bool
    var progress: Double?
    var timeLeft: Double?
    var listenedAt: Date?

    /// The daemon's view if it runs, else the files' (with the configured default rate).
    static func load() throws -> (rows: [LibraryRow], problems: [String]) {
        do {
            guard let client = try? DaemonClient() else { throw DaemonClient.NotRunning() }
            let reply = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "GetLibrary",
                                              start: false)
            let books = try reply.readDisplayDictionaries()
            let problems = try reply.readStrings()
            return (books.map(LibraryRow.init(bus:)), problems)
        } catch is DaemonClient.NotRunning {
            let (books, problems) = LibraryShelf(stateDirectory: RecentBookStore.defaultDirectory())
                .list(defaultRate: configuredRate())
            return (books.map(LibraryRow.init(book:)), problems)
        }
    }

    /// The book of the library titled `title` (any case; its file's name works too), nil if
    /// none is; two with that title are refused, naming their files.
    static func find(title: String) throws -> LibraryRow? {
        let folded = title.lowercased()
        let matches = try load().rows.filter {
            $0.title.lowercased() == folded || URL(fileURLWithPath: $0.path).lastPathComponent.lowercased() == folded
        }
        guard matches.count <= 1 else {
            throw ValidationError("\(matches.count) books in the library are called \"\(title)\": name one by its file ("
                                  + matches.map(\.path).joined(separator: ", ") + ")")
        }
        return matches.first
    }

    /// `[speech] rate` from config.toml (1.0 when there is none or it is invalid: `lector
    /// doctor` reports that).
    private static func configuredRate() -> Double {
        let path = Configuration.defaultPath(environment: ProcessInfo.processInfo.environment)
        guard let data = FileManager.default.contents(atPath: path),
              let configuration = try? Configuration.parse(utf8: Array(data), file: path) else { return 1 }
        return configuration.speech.rate
    }

    init(bus book: [String: String]) {
        title = book["title"] ?? "?"
        authors = (book["authors"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        path = book["path"] ?? ""
        isOpen = book["open"] == "true"
        missing = book["missing"] == "true"
        progress = book["progress"].flatMap(Double.init)
        timeLeft = book["time-left"].flatMap(Double.init).map { $0 / 1e6 }
        listenedAt = book["listened-at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1e6) }
    }

    init(book: LibraryBook) {
        title = book.displayTitle
        authors = book.entry.authors ?? []
        path = book.entry.path
        isOpen = false
        missing = book.missing
        progress = book.progress
        timeLeft = book.timeLeft
        listenedAt = book.listenedAt
    }

    var progressText: String { progress.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? "" }
    var timeLeftText: String { timeLeft.map { Status.Snapshot.clock(Int64($0 * 1e6)) } ?? "" }
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
