/// A chapter's `LanguageRun`s, sorted and without overlaps, asked by offset: which language the
/// text at an offset is in, and where the next change of language is, so narration can cut its
/// segments there and speak each with the voice of its language.
///
///     let runs = LanguageRuns([LanguageRun(range: 9..<19, language: "la")])
///     runs.language(at: 12)             // "la"
///     runs.language(at: 3)              // nil: the book's own language
///     runs.nextChange(after: 0)         // 9
///     runs.nextChange(after: 9)         // 19
public struct LanguageRuns: Sendable, Equatable {
    public let runs: [LanguageRun]

    /// Empty runs are dropped; a run overlapping the one before it starts where that one ends.
    public init(_ runs: [LanguageRun] = []) {
        var kept: [LanguageRun] = []
        for var run in runs.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            if let last = kept.last, run.range.lowerBound < last.range.upperBound {
                run.range = last.range.upperBound..<max(last.range.upperBound, run.range.upperBound)
            }
            guard !run.range.isEmpty else { continue }
            kept.append(run)
        }
        self.runs = kept
    }

    public var isEmpty: Bool { runs.isEmpty }

    /// The run containing `offset`, if any.
    public func run(at offset: Int) -> LanguageRun? {
        let index = firstRun(endingAfter: offset)
        guard index < runs.count, runs[index].range.contains(offset) else { return nil }
        return runs[index]
    }

    public func language(at offset: Int) -> String? { run(at: offset)?.language }

    /// The first offset after `offset` where the language changes (a run starts or ends), if any.
    public func nextChange(after offset: Int) -> Int? {
        let index = firstRun(endingAfter: offset)
        guard index < runs.count else { return nil }
        let run = runs[index]
        return run.range.lowerBound > offset ? run.range.lowerBound : run.range.upperBound
    }

    /// Binary search: the first run whose end is past `offset`.
    private func firstRun(endingAfter offset: Int) -> Int {
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].range.upperBound <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
