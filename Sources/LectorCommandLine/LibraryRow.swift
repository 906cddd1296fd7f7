import ArgumentParser
import FoundationEssentials
import LectorBus
import LectorInterface

/// One book of the library (`lector library`, and `lector read TITLE`), from the daemon's
/// `GetLibrary` or, in lector-tools, from the state files.
public struct LibraryRow {
    public var title: String
    public var authors: [String]
    public var path: String
    public var isOpen: Bool
    public var missing: Bool
    public var progress: Double?
    /// Seconds left at the book's speed.
    public var timeLeft: Double?
    public var listenedAt: Date?

    public init(title: String, authors: [String], path: String, isOpen: Bool, missing: Bool,
                progress: Double?, timeLeft: Double?, listenedAt: Date?) {
        (self.title, self.authors, self.path, self.isOpen, self.missing) = (title, authors, path, isOpen, missing)
        (self.progress, self.timeLeft, self.listenedAt) = (progress, timeLeft, listenedAt)
    }

    /// One of `GetLibrary`'s dictionaries.
    public init(bus book: [String: String]) {
        self.init(title: book["title"] ?? "?",
                  authors: (book["authors"] ?? "").split(separator: ",").map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
                      .filter { !$0.isEmpty },
                  path: book["path"] ?? "", isOpen: book["open"] == "true", missing: book["missing"] == "true",
                  progress: book["progress"].flatMap(Double.init),
                  timeLeft: book["time-left"].flatMap(Double.init).map { $0 / 1e6 },
                  listenedAt: book["listened-at"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1e6) })
    }

    /// The daemon's library and the problems it met reading it (`NotRunning` if no daemon runs
    /// and `start` is false).
    public static func fromDaemon(_ client: DaemonClient, start: Bool) throws -> (rows: [LibraryRow], problems: [String]) {
        let reply = try client.callDaemon(path: BusNames.objectPath, interface: MPRISNames.narrator, member: "GetLibrary",
                                          start: start)
        let books = try reply.readDisplayDictionaries()
        let problems = try reply.readStrings()
        return (books.map(LibraryRow.init(bus:)), problems)
    }

    /// The book of `rows` titled `title` (any case; its file's name works too), nil if none is;
    /// two with that title are refused, naming their files.
    public static func find(title: String, in rows: [LibraryRow]) throws -> LibraryRow? {
        let folded = title.lowercased()
        let matches = rows.filter {
            $0.title.lowercased() == folded || URL(fileURLWithPath: $0.path).lastPathComponent.lowercased() == folded
        }
        guard matches.count <= 1 else {
            throw ValidationError("\(matches.count) books in the library are called \"\(title)\": name one by its file ("
                                  + matches.map(\.path).joined(separator: ", ") + ")")
        }
        return matches.first
    }
}
