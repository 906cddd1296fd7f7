import Foundation
import Glibc

/// Writes a small state file so that a `kill -9` or a power cut leaves the old content or the new
/// one, never half of either: a temp file beside it, fsync, rename over, fsync the folder.
/// Without `durable` the fsyncs are left out: a `kill -9` still leaves one or the other (the
/// kernel has both), a power cut may leave the old one; no disk write is forced.
///
/// ```swift
/// try AtomicFile.write(Data("{}".utf8), to: URL(fileURLWithPath: "/home/me/.local/state/lector/recent-book.json"))
/// ```
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, durable: Bool = true) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temp = url.path + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = durable ? fsync(fd) : 0
        close(fd)
        guard written == data.count, synced == 0, rename(temp, url.path) == 0 else {
            unlink(temp)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        guard durable else { return }
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Moves an unreadable file out of the way as `<name>.corrupt-<unix time>` and returns where
    /// it went, so that it is kept for a human and never read again.
    public static func setAside(_ url: URL) -> String {
        let aside = url.path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
        try? FileManager.default.moveItem(atPath: url.path, toPath: aside)
        return aside
    }
}
