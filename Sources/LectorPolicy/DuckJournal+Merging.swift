/// Combining journals: the daemon's file holds the current duck plus what an earlier run (or
/// an earlier sound-server connection) left that is still being repaired.
extension DuckJournal {
    /// Nothing lowered, nothing raised: the file can go.
    public var isEmpty: Bool { entries.isEmpty && raises.isEmpty }

    /// Adds `other`'s entries and raises that this journal does not already have.
    public mutating func merge(_ other: DuckJournal) {
        for entry in other.entries where !entries.contains(entry) { entries.append(entry) }
        for raise in other.raises where !raises.contains(raise) { raises.append(raise) }
    }

    /// Without the entries of these streams (they belong to the current duck, not to the past).
    public func removing(streams: Set<UInt32>) -> DuckJournal {
        DuckJournal(entries: entries.filter { !streams.contains($0.stream) }, raises: raises, version: version)
    }
}
