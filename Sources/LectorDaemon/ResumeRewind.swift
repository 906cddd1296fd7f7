import Foundation

/// Rewind on resume (issue 13, as Cozy does): after narration was quiet (paused or stopped)
/// at least `afterPauseSeconds`, it resumes at the start of the sentence that was being read
/// `rewindSeconds` of listening earlier, so the listener gets back into the story. Quiet time
/// is wall-clock time (a laptop suspended overnight was quiet all night), and it survives a
/// restart through the bookmark's `listenedAt`.
///
/// ```swift
/// rewind.narrationStopped()                     // paused at 21:40
/// rewind.isDue(now: tomorrowMorning)            // true: resume 10 s earlier
/// ```
@MainActor
final class ResumeRewind {
    /// config.toml `[narration] rewind-after-pause-seconds`.
    var afterPauseSeconds = 300
    /// config.toml `[narration] rewind-seconds`; 0 never rewinds.
    var rewindSeconds = 10
    /// Since when narration has been quiet; nil while it plays (or nothing was heard yet).
    private(set) var quietSince: Date?

    func narrationStopped(at date: Date = Date()) { quietSince = date }

    func narrationStarted() { quietSince = nil }

    /// A book was opened: quiet since it was last heard (its bookmark's `listenedAt`). Returns
    /// whether to rewind now, for an open that plays at once.
    func bookOpened(lastHeard: Date?, playing: Bool, now: Date = Date()) -> Bool {
        quietSince = lastHeard
        let due = isDue(now: now)
        if playing { quietSince = nil }
        return due
    }

    func isDue(now: Date = Date()) -> Bool {
        guard rewindSeconds > 0, let quietSince else { return false }
        return now.timeIntervalSince(quietSince) >= Double(afterPauseSeconds)
    }
}
