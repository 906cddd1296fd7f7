/// Where the listener is on a playback stream's timeline: what a speaking channel needs to
/// announce events when they are heard. `PlaybackStream` is one (the sound server's playback
/// clock, interpolated between timing replies); in-process tests use one whose time moves with
/// a manual loop (LectorTestKit's `FakePlaybackClock`).
@MainActor
public protocol PlaybackClock: AnyObject {
    var sampleRate: Int { get }
    /// Corked: the clock stands still.
    var isCorked: Bool { get }
    /// The frame heard now, from the last timing reply and the time since.
    func currentHeardFrame() -> Int64
    /// Whether `currentHeardFrame()` can be used as it is (a recent reply that still holds).
    func timingIsFresh(maxAge: UInt64) -> Bool
    /// Asks the server where playback is; `completion` gets the frame heard once it answers.
    func heardFrame(_ completion: @escaping @MainActor (Int64) -> Void)
    /// Microseconds until `frame` is heard by the current estimate (plus a little), at most `longest`.
    func microseconds(untilHeard frame: Int64, atMost longest: UInt64) -> UInt64
}

extension PlaybackStream: PlaybackClock {}
