import LectorCore
import LectorLoop

/// What the sleep timer asks of narration (its seam, as `NarrationControl` is the audio policy's):
/// whether it plays and how long the chapter has left. The narrator is it; tests give a fake.
@MainActor
protocol SleepTimerNarration: AnyObject {
    var isPlaying: Bool { get }
    /// Microseconds of narration left in the chapter being heard, at the current rate (an estimate).
    var chapterTimeLeft: UInt64 { get }
}

/// `lector sleep 20m | chapter | off` (issue 13): narration pauses when the time is up, the last
/// 20 s fading out. It counts only while narration plays (a pause holds it, as a paused audiobook
/// app does), and it costs one one-shot timer: armed for the moment the fade begins, then once per
/// fade step, and never while paused or off, so an idle daemon stays at 0 wakeups a second.
///
/// A listener's action while it fades (play, pause, seek, rate, chapter) cancels the fade, not
/// the timer: the volume comes back at once and narration still pauses when the time is up,
/// without fading. A new `set` replaces the timer (and its fade) whole.
///
/// ```swift
/// let timer = try SleepTimer(loop: loop, narration: narrator)
/// timer.onFade = { audioPolicy.setNarrationFade($0) }; timer.onExpired = { ... }   // LectorService+Wiring
/// timer.set(.duration(seconds: 1200))   // pauses 20 min of listening from now; fades from 19:40
/// timer.set(.endOfChapter)              // pauses as the chapter ends; fades its last 20 s
/// timer.listenerActed()                 // a seek while fading: full volume again, timer kept
/// ```
@MainActor
final class SleepTimer {
    enum Mode: Equatable { case duration, endOfChapter }

    /// How long the fade before the pause lasts (shorter when less time is left than this).
    static let fadeMicroseconds: UInt64 = 20_000_000
    /// One volume step of the fade: 80 steps over 20 s, each too small to hear as a step.
    static let fadeStepMicroseconds: UInt64 = 250_000
    /// A chapter whose end comes later than estimated holds this loudness until it does.
    static let chapterFadeFloor = 0.1

    private(set) var mode: Mode?
    private(set) var isFading = false
    private let loop: any LoopScheduling
    private let narration: any SleepTimerNarration
    /// The narration's loudness as a fraction of what the listener set, 1 = untouched; nil ends
    /// the fade and gives the listener's volume back (applied to Lector's own stream only).
    var onFade: ((Double?) -> Void)?
    /// Time is up: pause narration (PausedBecause "sleep-timer"), which writes the bookmark.
    var onExpired: (() -> Void)?
    /// Narrator1.SleepTimer changed (set, cleared, a fade began or was cancelled).
    var onChanged: (() -> Void)?
    private var timer: (any LoopTimer)?
    /// Duration mode: microseconds left when counting last started or stopped ...
    private var remainingAtMark: UInt64 = 0
    /// ... and the loop time counting started (nil while narration does not play).
    private var markedAt: UInt64?
    /// How long this fade lasts from full loudness to silence.
    private var fadeLength = SleepTimer.fadeMicroseconds
    /// The listener acted during this timer's fade: it pauses on time, without fading again.
    private var fadeCancelled = false

    init(loop: any LoopScheduling, narration: any SleepTimerNarration) throws {
        self.loop = loop
        self.narration = narration
        timer = try loop.makeTimer { [weak self] in self?.fire() }
    }

    func close() {
        timer?.close()
    }

    /// Microseconds left: counted down while narration plays (duration), or the chapter's
    /// estimated rest (end of chapter); nil when off.
    var remaining: UInt64? {
        switch mode {
        case nil: return nil
        case .duration: return remainingDuration
        case .endOfChapter: return narration.chapterTimeLeft
        }
    }

    private var remainingDuration: UInt64 {
        guard let markedAt else { return remainingAtMark }
        let elapsed = loop.now &- markedAt
        return remainingAtMark > elapsed ? remainingAtMark - elapsed : 0
    }

    /// Replaces whatever timer there was (its fade ends, the volume comes back).
    func set(_ request: SleepRequest) {
        endFade()
        fadeCancelled = false
        switch request {
        case .off:
            mode = nil
            markedAt = nil
        case .endOfChapter:
            mode = .endOfChapter
        case .duration(let seconds):
            mode = .duration
            remainingAtMark = UInt64(seconds) * 1_000_000
            markedAt = narration.isPlaying ? loop.now : nil
        }
        reschedule()
        onChanged?()
    }

    /// Narration started or stopped playing: the count holds while it does not play, and a
    /// fade stops (the listener's volume comes back; it resumes if play comes before the end).
    func playbackChanged(playing: Bool) {
        guard mode != nil else { return }
        if mode == .duration {
            if playing, markedAt == nil { markedAt = loop.now }
            if !playing, markedAt != nil {
                remainingAtMark = remainingDuration
                markedAt = nil
            }
        }
        if !playing, isFading {
            endFade()
            onChanged?()
        }
        reschedule()
    }

    /// A listener's action (play, pause, seek, rate, chapter): a fade in progress is cancelled,
    /// the timer is not.
    func listenerActed() {
        guard isFading else { return }
        fadeCancelled = true
        endFade()
        reschedule()
        onChanged?()
    }

    /// The chapter being heard came to its end (the narrator moved on to the next one, or the
    /// book ended): an end-of-chapter timer pauses now, at the next chapter's start.
    func chapterEnded() {
        guard mode == .endOfChapter else { return }
        expire()
    }

    // MARK: - timing

    private func reschedule() {
        timer?.cancel()
        guard let mode, narration.isPlaying else { return }
        let left = remaining ?? 0
        if isFading {
            // To the end of a duration; a chapter's end is only estimated, so in steps until it comes.
            timer?.schedule(after: mode == .endOfChapter ? Self.fadeStepMicroseconds : min(Self.fadeStepMicroseconds, max(left, 1_000)))
        } else if mode == .duration, left == 0 {
            timer?.schedule(after: 0)
        } else if fadeCancelled {
            if mode == .duration { timer?.schedule(after: left) }   // the chapter's end pauses the other
        } else {
            timer?.schedule(after: left > Self.fadeMicroseconds ? left - Self.fadeMicroseconds : 0)
        }
    }

    private func fire() {
        guard let mode, narration.isPlaying else { return }
        let left = remaining ?? 0
        if mode == .duration, left == 0 { return expire() }
        if !isFading, !fadeCancelled {
            // The chapter's end is an estimate: look again when it is further away than thought.
            if left > Self.fadeMicroseconds + Self.fadeStepMicroseconds { return reschedule() }
            isFading = true
            fadeLength = max(min(Self.fadeMicroseconds, left), 1)
            onChanged?()
        }
        if isFading {
            let fraction = Double(left) / Double(fadeLength)
            onFade?(min(1, max(mode == .endOfChapter ? Self.chapterFadeFloor : 0, fraction)))
            // At the floor, an end of chapter later than estimated is waited for without waking.
            if mode == .endOfChapter, fraction <= Self.chapterFadeFloor { return timer?.cancel() ?? () }
        }
        reschedule()
    }

    /// Time is up: the pause first (the stream is corked), then the listener's volume back,
    /// so the jump back to full loudness is never heard.
    private func expire() {
        mode = nil
        markedAt = nil
        timer?.cancel()
        onExpired?()
        endFade()
        fadeCancelled = false
        onChanged?()
    }

    private func endFade() {
        guard isFading else { return }
        isFading = false
        onFade?(nil)
    }
}
