/// What the page shows about the narrator, sent as the `state` event and by `/api/state`.
///
///     {"running":true,"status":"Playing","pausedBecause":"","rate":1,
///      "book":{"title":"The Waste Land","authors":"T. S. Eliot","chapter":1,"chapterCount":6,
///              "url":"file:///…/wasteland.epub","hasCover":true,"language":"en"}}
public struct ViewSnapshot: Codable, Equatable, Sendable {
    public struct Book: Codable, Equatable, Sendable {
        public var title: String
        public var authors: String
        public var chapter: Int
        public var chapterCount: Int
        public var url: String
        public var hasCover: Bool
        public var language: String
    }

    /// The daemon owns its bus name.
    public var running = false
    /// MPRIS PlaybackStatus: Playing, Paused or Stopped.
    public var status = "Stopped"
    /// Narrator1.PausedBecause ("" while playing).
    public var pausedBecause = ""
    public var rate = 1.0
    public var book: Book?

    public init() {}
}

/// One chapter in the page's list (Narrator1.GetChapters).
public struct ViewChapter: Codable, Equatable, Sendable {
    public var title: String
    public var depth: Int
    /// Estimated length in seconds at normal rate (0 while unknown).
    public var seconds: Double
}

/// A chapter's markup for the page (Narrator1.GetChapterMarkup).
public struct ViewChapterMarkup: Codable, Equatable, Sendable {
    public var chapter: Int
    public var trackID: String
    public var html: String
    /// The chapter's sentences as narration reads them, as [start, end) scalar offsets of its
    /// text: the page marks the one around the word (`TextSegmenter.sentences()`, one rule for
    /// narration and page). Empty if the text could not be had: the page marks the block.
    public var sentences: [[Int]]
}
