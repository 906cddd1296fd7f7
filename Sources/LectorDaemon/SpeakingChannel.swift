import LectorAudio
import LectorCore
import LectorLoop

/// A stream's playback clock, the events waiting to be heard on it, and the one timer that
/// announces them when they are: what the Announcer (SpeechStarted, SpeakingRange,
/// SpeechFinished) and the Narrator (words, the end of a chapter) share.
///
/// Events are filed under the stream frame they belong to (`add`). The timer is armed for the
/// earliest one, from the clock's interpolated position; when it fires, everything the listener
/// has heard by then goes to `onHeard`, in order. The server is asked where playback is only
/// when the clock's last answer is older than `timingMaxAge` or no longer holds (a flush, a
/// start): not once per word. Nothing is armed while nothing waits to be heard, while the
/// owner does not listen (`listens`, e.g. a paused book), or while the clock stands (corked).
///
/// ```swift
/// let channel = try SpeakingChannel<String>(loop: loop)
/// channel.onHeard = { words in for word in words { emit(word) } }
/// channel.clock = stream
/// channel.add("river", at: 8_000)   // announced when frame 8000 is heard
/// ```
@MainActor
final class SpeakingChannel<Event> {
    /// How old the server's last word on the playback position may be before it is asked again.
    static var timingMaxAge: UInt64 { 10_000_000 }

    /// Everything heard since the last time, in frame order (possibly nothing: the clock was
    /// checked). Called from the timer.
    var onHeard: (([Event]) -> Void)?
    /// Whether the timer may be armed at all (the narrator listens only while playing).
    var listens: () -> Bool = { true }

    /// The stream whose clock decides; replacing it forgets every pending event (frames count
    /// from each stream's own start).
    var clock: (any PlaybackClock)? {
        didSet {
            guard clock !== oldValue else { return }
            schedule = .init()
            timer?.cancel()
        }
    }

    private var schedule = HearingSchedule<Event>()
    private var timer: (any LoopTimer)?

    init(loop: any LoopScheduling) throws {
        timer = try loop.makeTimer { [weak self] in self?.check() }
    }

    /// No timer fires after this.
    func close() {
        timer?.close()
        onHeard = nil
    }

    // MARK: - the schedule

    var nextFrame: Int64? { schedule.nextFrame }
    var isEmpty: Bool { schedule.isEmpty }

    /// Files `event` under `frame`; call `reschedule()` after adding.
    func add(_ event: Event, at frame: Int64) { schedule.add(event, at: frame) }

    func removeAll(where shouldDrop: (Event) -> Bool) { schedule.removeAll(where: shouldDrop) }

    /// Audio from `frame` on was discarded.
    func removeAll(fromFrame frame: Int64) { schedule.removeAll(fromFrame: frame) }

    func removeAll() {
        schedule = .init()
        timer?.cancel()
    }

    /// Takes out, without announcing them, the events heard by now by the interpolated clock (a
    /// teardown settling where the listener is).
    func heardNow() -> [Event] {
        guard let clock else { return [] }
        return schedule.due(heard: clock.currentHeardFrame())
    }

    // MARK: - the timer

    /// Arms the timer for the earliest pending event, or disarms it when there is none, or when
    /// the clock is corked and it is not heard yet (whoever uncorks reschedules).
    func reschedule() {
        guard listens(), let next = schedule.nextFrame, let clock,
              !clock.isCorked || clock.currentHeardFrame() >= next else {
            timer?.cancel()
            return
        }
        timer?.schedule(noLaterThan: clock.microseconds(untilHeard: next, atMost: PlaybackStream.longestTimingGap))
    }

    /// Stops looking until `reschedule()` (a pause).
    func stopListening() { timer?.cancel() }

    private func check() {
        guard let clock else { return }
        if clock.timingIsFresh(maxAge: Self.timingMaxAge) {
            deliver(heard: clock.currentHeardFrame())
        } else {
            clock.heardFrame { [weak self, weak clock] heard in
                guard let self, let clock, self.clock === clock else { return }
                self.deliver(heard: heard)
            }
        }
    }

    private func deliver(heard: Int64) {
        let due = schedule.due(heard: heard)
        onHeard?(due)
        reschedule()
    }
}
