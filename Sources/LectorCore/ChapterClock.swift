/// MPRIS time for a chapter of text that is synthesized, not recorded: nobody knows a chapter's
/// duration until it has been spoken.
///
/// Times are in normal-rate microseconds, as MPRIS wants (clients extrapolate Position at
/// `Rate`). A *run* is continuous playback from a known (offset, time); within it, Position is
/// the run's start time plus the audio heard since, times the rate — the stream clock, exactly.
/// Between runs (seeks, chapter starts) times come from a speaking-speed estimate that is
/// refined from every run, so `length` gets better as the book is heard.
///
/// ```swift
/// var clock = ChapterClock(scalarCount: 15_000)     // 1000 s at 15 scalars/s
/// clock.startRun(atOffset: 0)
/// clock.position(audioSeconds: 2, rate: 1.5)          // 3_000_000
/// ```
public struct ChapterClock: Sendable {
    /// Speaking speed at rate 1.0, in Unicode scalars of text per second (espeak-ng English at
    /// 175 wpm speaks about 15).
    public private(set) var scalarsPerSecond: Double
    public let scalarCount: Int
    public private(set) var runStartOffset = 0
    public private(set) var runStartTime: Int64 = 0

    public init(scalarCount: Int, scalarsPerSecond: Double = 15) {
        self.scalarCount = scalarCount
        self.scalarsPerSecond = scalarsPerSecond
    }

    /// The chapter's estimated duration at normal rate, in microseconds.
    public var length: Int64 { time(ofOffset: scalarCount) }

    public func time(ofOffset offset: Int) -> Int64 {
        Int64((Double(max(0, min(offset, scalarCount))) / scalarsPerSecond * 1_000_000).rounded())
    }

    public func offset(atTime microseconds: Int64) -> Int {
        let offset = Int((Double(max(0, microseconds)) / 1_000_000 * scalarsPerSecond).rounded(.down))
        return min(offset, scalarCount)
    }

    /// Starts a run at `offset`; its time is `time` when playback continues seamlessly, else
    /// the estimate for the offset.
    public mutating func startRun(atOffset offset: Int, time: Int64? = nil) {
        runStartOffset = max(0, min(offset, scalarCount))
        runStartTime = time ?? self.time(ofOffset: runStartOffset)
    }

    /// Position after `audioSeconds` of this run's audio have been heard at `rate`.
    public func position(audioSeconds: Double, rate: Double) -> Int64 {
        let position = runStartTime + Int64((max(0, audioSeconds) * rate * 1_000_000).rounded())
        return min(max(0, position), max(length, runStartTime))
    }

    /// Learns the real speed from a stretch of this run: `scalars` of text took `audioSeconds`
    /// at `rate`. Short stretches are ignored; longer ones weigh in proportionally.
    public mutating func learn(scalars: Int, audioSeconds: Double, rate: Double) {
        guard scalars >= 50, audioSeconds > 1, rate > 0 else { return }
        let measured = Double(scalars) / (audioSeconds * rate)
        guard measured.isFinite, (2...80).contains(measured) else { return }
        let weight = min(0.8, Double(scalars) / 2_000)
        scalarsPerSecond = scalarsPerSecond * (1 - weight) + measured * weight
    }
}
