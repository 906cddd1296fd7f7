import LectorAudio

/// A playback clock in memory for in-process tests of what announces words when they are heard
/// (the daemon's `SpeakingChannel`): the listener's frame moves with a `ManualLoop`'s time
/// while the clock plays, up to what was written; the server's answers to timing queries come
/// when the test says (`answerTimingQueries()`), and are counted.
///
/// ```swift
/// let loop = ManualLoop()
/// let clock = FakePlaybackClock(loop: loop)
/// clock.write(frames: 22_050)   // one second of audio, playing from now
/// loop.advanceTime(by: 500_000)
/// clock.currentHeardFrame()     // 11025
/// ```
@MainActor
public final class FakePlaybackClock: PlaybackClock {
    public let sampleRate: Int
    public private(set) var isCorked = false
    /// Frames written so far: the clock never runs past them.
    public private(set) var framesWritten: Int64 = 0
    /// Timing queries asked of the "server" (`heardFrame`), answered or not.
    public private(set) var timingQueries = 0
    /// Whether the last answer still holds: a query answered recently makes it so, `invalidateTiming()` undoes it.
    public private(set) var timingValid = false

    private let loop: ManualLoop
    /// The frame heard at `anchorTime` (loop microseconds).
    private var anchorFrame: Int64 = 0
    private var anchorTime: UInt64
    private var answeredAt: UInt64?
    private var waiting: [@MainActor (Int64) -> Void] = []

    public init(loop: ManualLoop, sampleRate: Int = 22050) {
        self.loop = loop
        self.sampleRate = sampleRate
        anchorTime = loop.now
    }

    // MARK: - the test's side

    /// More audio after what was written; it plays on from where the listener is.
    public func write(frames: Int64) {
        anchor()
        framesWritten += frames
    }

    public func cork() {
        anchor()
        isCorked = true
    }

    public func uncork() {
        anchor()
        isCorked = false
    }

    /// The server answers every timing query asked so far.
    public func answerTimingQueries() {
        answeredAt = loop.now
        timingValid = true
        let waiters = waiting
        waiting = []
        let heard = currentHeardFrame()
        for waiter in waiters { waiter(heard) }
    }

    /// Something made the last answer wrong (a flush, a start).
    public func invalidateTiming() { timingValid = false }

    /// Queries asked and not answered yet.
    public var pendingTimingQueries: Int { waiting.count }

    // MARK: - PlaybackClock

    public func currentHeardFrame() -> Int64 {
        guard !isCorked else { return anchorFrame }
        let elapsed = Int64(loop.now - anchorTime) * Int64(sampleRate) / 1_000_000
        return min(framesWritten, anchorFrame + elapsed)
    }

    public func timingIsFresh(maxAge: UInt64) -> Bool {
        guard timingValid, let answeredAt else { return false }
        return loop.now - answeredAt < maxAge
    }

    public func heardFrame(_ completion: @escaping @MainActor (Int64) -> Void) {
        timingQueries += 1
        waiting.append(completion)
    }

    public func microseconds(untilHeard frame: Int64, atMost longest: UInt64) -> UInt64 {
        let ahead = max(0, frame - currentHeardFrame())
        return min(UInt64(ahead) * 1_000_000 / UInt64(sampleRate) + 1_000, longest)
    }

    private func anchor() {
        anchorFrame = currentHeardFrame()
        anchorTime = loop.now
    }
}
