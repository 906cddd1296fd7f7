/// FNV-1a, 64 bits: a hash that stays the same across runs and machines (Swift's `Hasher` is
/// seeded per process), for file names and D-Bus object path elements derived from a book.
public enum StableHash {
    public static func value<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// 16 lowercase hex digits: `StableHash.hex("abc")` is `"e71fa2190541574b"`.
    public static func hex(_ string: String) -> String {
        let digits = String(value(string.utf8), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
