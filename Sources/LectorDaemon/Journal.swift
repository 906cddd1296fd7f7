import CSystemd
import Foundation

/// Log lines for the journal (with priority and fields) when journald is there, else stderr.
///
/// ```swift
/// Journal.log(.warning, "sound server gone", fields: ["LECTOR_SPEECH_ID": "7"])
/// ```
public enum Journal {
    public enum Priority: Int { case error = 3, warning = 4, notice = 5, info = 6, debug = 7 }

    /// journald's socket exists and nobody asked for stderr (`LECTOR_LOG=stderr`, as the tests do).
    static let toJournal: Bool = {
        ProcessInfo.processInfo.environment["LECTOR_LOG"] != "stderr"
            && FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")
    }()

    public static func log(_ priority: Priority, _ message: String, fields: [String: String] = [:]) {
        guard toJournal else {
            let extra = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
            FileHandle.standardError.write(Data("lector[\(priority)]: \(message)\(extra)\n".utf8))
            return
        }
        var lines = ["MESSAGE=\(message)", "PRIORITY=\(priority.rawValue)", "SYSLOG_IDENTIFIER=lector"]
        lines += fields.map { "\($0.key)=\($0.value)" }
        let strings = lines.map { strdup($0)! }
        defer { strings.forEach { free($0) } }
        var vectors = strings.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
        _ = sd_journal_sendv(&vectors, Int32(vectors.count))
    }
}
