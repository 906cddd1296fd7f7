import Foundation

/// FNV-1a 64-bit over a file's bytes: the identity of a book that names none.
///
/// Not cryptographic, and it need not be: it only has to be stable across copies and moves of
/// the same file and differ between different files, so a bookmark survives `mv book.txt ~/old/`.
///
///     ContentHash.fnv1a64(of: Data("a".utf8))  // "af63dc4c8601ec8c"
enum ContentHash {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func fnv1a64Value(of data: Data, continuing hash: UInt64) -> UInt64 {
        var hash = hash
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* prime
            }
        }
        return hash
    }

    static func fnv1a64(of data: Data) -> String { hex(fnv1a64Value(of: data, continuing: offsetBasis)) }

    /// Hashes a file in 1 MiB chunks, so a large EPUB is never held in memory for this.
    static func fnv1a64(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hash = offsetBasis
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hash = fnv1a64Value(of: chunk, continuing: hash)
        }
        return hex(hash)
    }

    /// The identity string for a hashed book, e.g. `fnv1a64:af63dc4c8601ec8c`.
    static func identity(hex: String) -> String { "fnv1a64:" + hex }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
