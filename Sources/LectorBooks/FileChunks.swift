import Foundation

/// A file read 1 MiB at a time, each piece handed over and let go: the book's identity hash,
/// a plain text laid out as it is read and its chapters' checksums never hold a large file whole.
///
///     try FileChunks.read(url) { piece in hash = StableHash.value(piece, continuing: hash); return true }
enum FileChunks {
    static let size = 1 << 20

    /// Calls `body` with each piece in order, until the file ends or `body` returns false.
    static func read(_ file: URL, _ body: ([UInt8]) throws -> Bool) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: size), !chunk.isEmpty {
            guard try body([UInt8](chunk)) else { return }
        }
    }
}
