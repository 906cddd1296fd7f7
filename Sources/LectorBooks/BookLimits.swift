/// Bounds on what opening a book may cost, against ZIP bombs and runaway files.
///
/// Declared sizes are checked for every entry when the archive is opened, before anything is
/// extracted; inflation is also cut off the moment an entry produces more than it declared or
/// more than `maxEntrySize`, since headers can lie. Tests lower the limits to exercise them
/// cheaply:
///
///     let tight = BookLimits(maxEntrySize: 1 << 20, maxTotalSize: 4 << 20,
///                            maxCompressionRatio: 200, ratioCheckedAbove: 64 << 10)
///     XCTAssertThrowsError(try BookReader.open(bomb, limits: tight))
///
/// The default refuses an EPUB carrying a single file over 64 MiB (e.g. a long audio track for
/// media overlays); raise `maxEntrySize` for such books.
public struct BookLimits: Sendable, Equatable {
    /// Largest uncompressed size of one archive entry, or of a plain-text file.
    public var maxEntrySize: UInt64
    /// Largest sum of the declared uncompressed sizes of all entries.
    public var maxTotalSize: UInt64
    /// Largest uncompressed-to-compressed ratio for entries bigger than `ratioCheckedAbove`.
    public var maxCompressionRatio: UInt64
    /// Entries up to this uncompressed size are exempt from the ratio check (small repetitive
    /// files compress very well and are harmless).
    public var ratioCheckedAbove: UInt64

    public init(maxEntrySize: UInt64, maxTotalSize: UInt64, maxCompressionRatio: UInt64,
                ratioCheckedAbove: UInt64) {
        self.maxEntrySize = maxEntrySize
        self.maxTotalSize = maxTotalSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckedAbove = ratioCheckedAbove
    }

    /// 64 MiB per entry, 512 MiB in all, 200:1 for entries over 1 MiB.
    public static let `default` = BookLimits(maxEntrySize: 64 << 20, maxTotalSize: 512 << 20,
                                             maxCompressionRatio: 200, ratioCheckedAbove: 1 << 20)
}
