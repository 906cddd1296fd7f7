import Foundation
import LectorCore

/// FNV-1a 64-bit (`LectorCore.StableHash`) over a file's bytes: the identity of a book that names none.
///
/// Not cryptographic, and it need not be: it only has to be stable across copies and moves of
/// the same file and differ between different files, so a bookmark survives `mv book.txt ~/old/`.
///
///     ContentHash.fnv1a64(of: Data("a".utf8))  // "af63dc4c8601ec8c"
enum ContentHash {
    static func fnv1a64(of data: Data) -> String { StableHash.hex(StableHash.value(data)) }

    /// Hashes a file a piece at a time (`FileChunks`), so a large EPUB is never held in memory for this.
    static func fnv1a64(ofFile url: URL) throws -> String {
        var hash = StableHash.offsetBasis
        try FileChunks.read(url) { piece in
            hash = StableHash.value(piece, continuing: hash)
            return true
        }
        return StableHash.hex(hash)
    }

    /// The identity string for a hashed book, e.g. `fnv1a64:af63dc4c8601ec8c`.
    static func identity(hex: String) -> String { "fnv1a64:" + hex }
}
