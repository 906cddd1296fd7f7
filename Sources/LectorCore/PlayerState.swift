/// What MPRIS clients see of the narrator, as one value: the daemon changes it, then emits
/// PropertiesChanged for exactly `PlayerState.changes(from:to:)` — never a value that did not
/// change (that steals focus in playerctld), never a missed one (stale lock screens).
///
/// ```swift
/// var state = PlayerState()
/// let before = state
/// state.open(chapterCount: 12)
/// PlayerState.changes(from: before, to: state)   // ["CanGoNext", "CanPlay", "CanPause", "CanSeek", "Metadata"]
/// ```
public struct PlayerState: Equatable, Sendable {
    public enum Status: String, Sendable { case playing = "Playing", paused = "Paused", stopped = "Stopped" }
    public enum Loop: String, Sendable, CaseIterable { case none = "None", track = "Track", playlist = "Playlist" }

    /// Seconds into a chapter after which Previous restarts it instead of going back.
    public static let restartThresholdSeconds = 3.0
    public static let rateRange: ClosedRange<Double> = 0.5...2.5

    public var status: Status = .stopped
    public var chapterCount = 0
    public var chapter = 0
    public var loop: Loop = .none
    public var rate = 1.0
    public var volume = 1.0
    /// More than `restartThresholdSeconds` into the chapter: Previous would restart it.
    public var pastRestartThreshold = false
    /// Changes whenever what Metadata describes changes (book, chapter, length, cover).
    public var metadataRevision = 0
    /// Next and Previous skip through time (config `next-previous = "skip"`): then they can
    /// always be pressed while a book is open, at its first and last chapter too.
    public var nextPreviousSkips = false

    public init() {}

    public var hasBook: Bool { chapterCount > 0 }
    public var canPlay: Bool { hasBook }
    public var canPause: Bool { hasBook }
    public var canSeek: Bool { hasBook }
    public var canGoNext: Bool { hasBook && (nextPreviousSkips || chapter + 1 < chapterCount || loop == .playlist) }
    public var canGoPrevious: Bool { hasBook && (nextPreviousSkips || chapter > 0 || loop == .playlist || pastRestartThreshold) }

    public mutating func open(chapterCount: Int, chapter: Int = 0) {
        self.chapterCount = chapterCount
        self.chapter = chapter
        status = .stopped
        pastRestartThreshold = false
        metadataRevision += 1
    }

    /// What `Next` does: the following chapter, wrapping with Playlist loop; nil at the end.
    public var nextChapter: Int? {
        if chapter + 1 < chapterCount { return chapter + 1 }
        return loop == .playlist && hasBook ? 0 : nil
    }

    /// What `Previous` does at `seconds` into the chapter: restart it, or go back one.
    public func previousTarget(atSeconds seconds: Double) -> Int? {
        guard hasBook else { return nil }
        if seconds > Self.restartThresholdSeconds { return chapter }
        if chapter > 0 { return chapter - 1 }
        return loop == .playlist ? chapterCount - 1 : nil
    }

    /// What happens when a chapter has been heard to its end.
    public var chapterAfterEnd: Int? {
        loop == .track ? chapter : nextChapter
    }

    /// Player property names whose values differ between the two states, in spec order.
    public static func changes(from old: PlayerState, to new: PlayerState) -> [String] {
        var names: [String] = []
        if old.status != new.status { names.append("PlaybackStatus") }
        if old.loop != new.loop { names.append("LoopStatus") }
        if old.rate != new.rate { names.append("Rate") }
        if old.metadataRevision != new.metadataRevision { names.append("Metadata") }
        if old.volume != new.volume { names.append("Volume") }
        if old.canGoNext != new.canGoNext { names.append("CanGoNext") }
        if old.canGoPrevious != new.canGoPrevious { names.append("CanGoPrevious") }
        if old.canPlay != new.canPlay { names.append("CanPlay") }
        if old.canPause != new.canPause { names.append("CanPause") }
        if old.canSeek != new.canSeek { names.append("CanSeek") }
        return names
    }
}
