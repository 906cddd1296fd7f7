/// The statistic both benchmarks report, defined once so their figures mean the same thing.
public enum Percentile {
    /// Median as the mean of the middle two for an even count; other percentiles by nearest rank.
    /// `Percentile.of([3, 1, 2, 4], 0.5)` is 2.5; `Percentile.of(samples, 0.9)` the p90.
    public static func of(_ values: [Double], _ fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        if fraction == 0.5 {
            let middle = sorted.count / 2
            return sorted.count % 2 == 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
        }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
