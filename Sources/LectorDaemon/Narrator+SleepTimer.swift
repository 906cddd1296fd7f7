/// What the sleep timer asks of the narrator.
extension Narrator: SleepTimerNarration {
    var isPlaying: Bool { state.status == .playing }

    /// Microseconds of narration left in the chapter being heard at the current rate: the
    /// chapter's length at the speed learned so far (refined as it plays), less Position,
    /// divided by the rate. An estimate: the end of chapter timer looks again as it nears it.
    ///
    /// ```swift
    /// narrator.chapterTimeLeft   // 95_000_000: 1:35 to go at 1.2×
    /// ```
    var chapterTimeLeft: UInt64 {
        guard book != nil, clock.scalarCount > 0 else { return UInt64(SleepTimer.fadeMicroseconds * 3) }
        let left = Double(max(0, clock.length - position)) / max(state.rate, 0.01)
        return UInt64(left)
    }
}
