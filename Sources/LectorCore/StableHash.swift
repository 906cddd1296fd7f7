/// FNV-1a, 64 bits: a hash that stays the same across runs and machines (Swift's `Hasher` is
/// seeded per process), for file names and D-Bus object path elements derived from a book, and
/// for the identity of a book file that names none (LectorBooks hashes its bytes in chunks).
/// The one FNV implementation of the package.
public enum StableHash {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of `bytes`, or of what came before and `bytes` when `hash` is an earlier result.
    @inlinable
    public static func value<S: Sequence>(_ bytes: S, continuing hash: UInt64 = offsetBasis) -> UInt64
    where S.Element == UInt8 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return hash
    }

    /// 16 lowercase hex digits: `StableHash.hex("abc")` is `"e71fa2190541574b"`.
    public static func hex(_ string: String) -> String { hex(value(string.utf8)) }

    /// A hash value as 16 lowercase hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
