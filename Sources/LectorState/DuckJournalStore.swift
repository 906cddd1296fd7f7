import Foundation
import LectorPolicy

/// The duck journal on disk: `$XDG_STATE_HOME/lector/duck-journal.json`, present only while
/// other apps' volumes are lowered, so a daemon killed mid-duck can restore them when it next
/// starts.
///
/// Written on the event loop without fsync, on purpose: it must be on disk before a volume is
/// lowered, a small write + rename costs microseconds, and a killed process loses nothing the
/// kernel already has (only a power cut could, and the sound server's state goes with it).
///
/// ```swift
/// let store = DuckJournalStore(directory: DuckJournalStore.defaultDirectory())
/// try store.save(journal)     // before lowering
/// store.remove()              // after restoring
/// ```
public struct DuckJournalStore: Sendable {
    public let file: URL

    public init(directory: URL) {
        file = directory.appendingPathComponent("duck-journal.json")
    }

    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        BookmarkStore.defaultDirectory(environment: environment).deletingLastPathComponent()
    }

    public func save(_ journal: DuckJournal) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(journal).write(to: file, options: .atomic)
    }

    /// nil when there is none; a file that cannot be read is an error (and is left for a human).
    public func load() throws -> DuckJournal? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try JSONDecoder().decode(DuckJournal.self, from: Data(contentsOf: file))
    }

    public func remove() {
        try? FileManager.default.removeItem(at: file)
    }
}
