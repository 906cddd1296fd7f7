/// Which `BookLimits` bound an archive broke, with the figures, for `BookError.tooLarge`.
///
///     // "EPUB/bomb.xhtml declares 83886080 bytes uncompressed, over the 67108864-byte limit per entry"
public enum SizeLimitViolation: Sendable, Equatable, CustomStringConvertible {
    /// An entry's declared uncompressed size is over `maxEntrySize`.
    case entry(path: String, size: UInt64, limit: UInt64)
    /// The declared uncompressed sizes of all entries add up to more than `maxTotalSize`.
    case total(size: UInt64, limit: UInt64)
    /// A large entry's declared uncompressed size over its compressed size is over `maxCompressionRatio`.
    case ratio(path: String, compressed: UInt64, uncompressed: UInt64, limit: UInt64)
    /// While inflating, an entry produced more bytes than it declared (or than the per-entry
    /// limit): its headers lie.
    case inflated(path: String, declared: UInt64, limit: UInt64)

    public var description: String {
        switch self {
        case .entry(let path, let size, let limit):
            return "\(path) declares \(size) bytes uncompressed, over the \(limit)-byte limit per entry"
        case .total(let size, let limit):
            return "the entries declare \(size) bytes uncompressed in all, over the \(limit)-byte limit"
        case .ratio(let path, let compressed, let uncompressed, let limit):
            return "\(path) inflates \(compressed) bytes to \(uncompressed), more than \(limit) times"
        case .inflated(let path, let declared, let limit):
            return "\(path) inflates to more than it declares (\(declared) bytes) or than \(limit) bytes"
        }
    }
}
