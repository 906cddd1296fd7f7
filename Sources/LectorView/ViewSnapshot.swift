/// What the page shows about the narrator, sent as the `state` event and by `/api/state`.
///
///     {"running":true,"status":"Playing","pausedBecause":"","rate":1,
///      "book":{"title":"The Waste Land","authors":"T. S. Eliot","chapter":1,"chapterCount":6,
///              "url":"file:///…/wasteland.epub","hasCover":true,"language":"en","voice":"joe",
///              "voices":[{"name":"joe","language":"en-us","engine":"piper","quality":"medium"},
///                        {"name":"English (America)","language":"en-us","engine":"espeak-ng","quality":""}]}}
public struct ViewSnapshot: Codable, Equatable, Sendable {
    public struct Book: Codable, Equatable, Sendable {
        public var title: String
        public var authors: String
        public var chapter: Int
        public var chapterCount: Int
        public var url: String
        public var hasCover: Bool
        public var language: String
        /// Narrator1.Voice: the voice reading it.
        public var voice = ""
        /// Narrator1.BookVoices: those the listener may choose from (the page's voice picker).
        public var voices: [ViewVoice] = []
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

/// A voice that can read the open book (Narrator1.BookVoices), as the page's voice picker lists it.
public struct ViewVoice: Codable, Equatable, Sendable {
    /// What Narrator1.Voice takes and says.
    public var name: String
    public var language: String
    /// "piper" (a neural, natural-sounding voice) or "espeak-ng".
    public var engine: String
    /// A neural voice's quality ("medium"); "" for espeak-ng.
    public var quality: String
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
