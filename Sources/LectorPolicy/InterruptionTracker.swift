/// Pauses the book for calls and resumes it afterwards, the way a phone does: only if the
/// book was playing when the call came, the user did nothing meanwhile, and the call did not
/// last longer than ``resumeTimeoutMicroseconds`` (after half an hour nobody expects the book
/// to start talking again).
///
/// Several sources can overlap (a call's playback and recording streams, a second call, a
/// `request-cork` event); they form one interruption that ends when the last one ends.
/// Times are microseconds on a monotonic clock.
///
/// ```swift
/// var calls = InterruptionTracker()
/// calls.began(.playback(41), at: t0, narrationPlaying: true)       // .pause
/// calls.began(.recording(7), at: t0 + 10, narrationPlaying: false) // .none
/// calls.ended(.playback(41), at: t1)                               // .none: the recording is still on
/// calls.ended(.recording(7), at: t1 + 10)                          // .resume
/// ```
public struct InterruptionTracker: Sendable {
    /// What interrupts: a call's playback stream (sink input), its recording stream (source
    /// output), or a `request-cork` stream event from the server.
    public enum Source: Hashable, Sendable {
        case playback(UInt32), recording(UInt32), corkRequest
    }

    /// What the daemon should do with the narration.
    public enum Action: Equatable, Sendable {
        case none, pause, resume
    }

    /// Longest interruption after which the book still resumes by itself.
    public var resumeTimeoutMicroseconds: UInt64

    /// The sources active now.
    public private(set) var active: Set<Source> = []
    /// When narration was last paused for this interruption (or when it began, if it was not playing).
    private var pausedAt: UInt64 = 0
    /// The book was playing when we paused it: we owe a resume.
    private var owesResume = false

    public init(resumeTimeoutMicroseconds: UInt64 = 30 * 60 * 1_000_000) {
        self.resumeTimeoutMicroseconds = resumeTimeoutMicroseconds
    }

    /// A call is going on: the daemon holds back announcements below `important`.
    public var isInterrupted: Bool { !active.isEmpty }

    /// A source started. Returns `.pause` whenever the narration is playing: also when the
    /// user pressed play during an earlier call and a second call starts; that second pause
    /// is ours again, so the book resumes when the last call ends.
    /// A source already known changes nothing (repeated events).
    public mutating func began(_ source: Source, at now: UInt64, narrationPlaying: Bool) -> Action {
        guard !active.contains(source) else { return .none }
        return start([source], at: now, narrationPlaying: narrationPlaying)
    }

    /// A source ended. `.resume` only when it was the last one, the book was playing when we
    /// paused it, the user did nothing since, and `now - pause <= timeout`. Unknown sources: `.none`.
    public mutating func ended(_ source: Source, at now: UInt64) -> Action {
        guard active.remove(source) != nil, active.isEmpty else { return .none }
        return finish(at: now)
    }

    /// The user played, paused, stopped, seeked, skipped or opened something: they are in
    /// charge now, so this interruption will not resume the book by itself.
    public mutating func userActed() {
        owesResume = false
    }

    /// Brings the sources in line with what the server shows, for when streams appeared or
    /// vanished without events (first connection, sound server restarted). New ones count as
    /// begun, missing ones as ended. `.corkRequest` is not a stream: it stays as it is.
    ///
    /// ```swift
    /// let now = InterruptionTracker.callSources(in: snapshot, excluding: ours)
    /// let action = calls.reconcile(with: now, at: clock, narrationPlaying: player.isPlaying)
    /// ```
    public mutating func reconcile(with current: Set<Source>, at now: UInt64, narrationPlaying: Bool) -> Action {
        let streams = current.subtracting([.corkRequest])
        let appeared = streams.subtracting(active)
        let vanished = active.filter { $0 != .corkRequest && !streams.contains($0) }
        // New sources first: a call that only changed index keeps the interruption going.
        var action = Action.none
        if !appeared.isEmpty { action = start(appeared, at: now, narrationPlaying: narrationPlaying) }
        guard !vanished.isEmpty else { return action }
        active.subtract(vanished)
        return active.isEmpty ? finish(at: now) : action
    }

    /// Call streams in a snapshot: playback and recording streams with `media.role=phone` that
    /// are not corked (a VoIP app may keep an idle stream corked between calls; PulseAudio's
    /// module-role-cork ignores corked streams too). `own` holds our playback streams
    /// (sink inputs); the daemon records nothing, so recordings are never ours.
    public static func callSources(in snapshot: AudioSnapshot, excluding own: Set<UInt32>) -> Set<Source> {
        var sources = Set<Source>()
        for stream in snapshot.playbacks.values where stream.isCall && !stream.corked && !own.contains(stream.index) {
            sources.insert(.playback(stream.index))
        }
        for stream in snapshot.recordings.values where stream.isCall && !stream.corked {
            sources.insert(.recording(stream.index))
        }
        return sources
    }

    private mutating func start(_ sources: Set<Source>, at now: UInt64, narrationPlaying: Bool) -> Action {
        let first = active.isEmpty
        active.formUnion(sources)
        if narrationPlaying {
            pausedAt = now
            owesResume = true
            return .pause
        }
        if first {
            pausedAt = now
            owesResume = false
        }
        return .none
    }

    private mutating func finish(at now: UInt64) -> Action {
        let elapsed = now >= pausedAt ? now - pausedAt : 0
        let resume = owesResume && elapsed <= resumeTimeoutMicroseconds
        owesResume = false
        return resume ? .resume : .none
    }
}
