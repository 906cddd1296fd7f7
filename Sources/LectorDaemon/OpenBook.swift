import Foundation
import LectorCore

/// A book as the narrator uses it: metadata, chapter titles, and chapter texts as they arrive
/// from the background parser (the first chapter plays before the rest is parsed).
/// Owned by the event loop thread.
struct OpenBook {
    let identity: String
    let title: String
    let authors: [String]
    let language: String?
    let url: URL
    var coverURL: URL?
    let chapterTitles: [String]
    /// Loaded chapters' text, set through `store(_:chapter:)` so each length is counted once.
    private(set) var chapterTexts: [Int: String] = [:]
    /// Each loaded chapter's length in Unicode scalars. Counting a String's scalars walks all of
    /// it, and Pause (the library entry), the track list and skips ask on the loop thread.
    private(set) var chapterScalarCounts: [Int: Int] = [:]
    /// Each loaded chapter's passages in other languages (`Chapter.languageRuns`).
    var chapterLanguages: [Int: [LanguageRun]] = [:]
    /// Each loaded chapter's `ssml:ph` runs and PLS lexicons (`Chapter.pronunciation`), if any.
    var chapterPronunciations: [Int: ChapterPronunciation] = [:]
    /// Nesting of each chapter in the table of contents (0 = top level), for chapter lists.
    var chapterDepths: [Int] = []

    var chapterCount: Int { chapterTitles.count }

    /// `scalarCount`, when the caller has counted already, must be `text.unicodeScalars.count`.
    mutating func store(_ text: String, chapter: Int, scalarCount: Int? = nil) {
        chapterTexts[chapter] = text
        chapterScalarCounts[chapter] = scalarCount ?? text.unicodeScalars.count
    }

    /// A chapter's length known without its text (a plain-text book counts every chapter on open).
    mutating func know(_ scalarCount: Int, scalarsOf chapter: Int) {
        chapterScalarCounts[chapter] = scalarCount
    }

    /// Chapters whose text is kept, relative to the listener's: the one before (Previous), this
    /// one and two after (the next is ready before this one ends). A long book's whole text is
    /// never held; the others are read from the book again when the listener comes near.
    static let keptChapters = -1...2

    /// Lets go of the text of chapters outside `keptChapters` around `chapter`; lengths stay.
    mutating func keepTexts(near chapter: Int) {
        for index in chapterTexts.keys where !Self.keptChapters.contains(index - chapter) {
            chapterTexts[index] = nil
            chapterLanguages[index] = nil
            chapterPronunciations[index] = nil
        }
    }

    /// Object path prefix of this book's tracks: stable per book, outside `/org/mpris`.
    var trackPrefix: String { "/io/github/lector/Track/b" + StableHash.hex(identity) }

    func trackID(_ chapter: Int) -> String { "\(trackPrefix)/c\(chapter)" }

    func chapter(ofTrackID path: String) -> Int? {
        guard path.hasPrefix(trackPrefix + "/c"), let index = Int(path.dropFirst(trackPrefix.count + 2)),
              chapterTitles.indices.contains(index) else { return nil }
        return index
    }
}

/// MPRIS's "no track" path.
let noTrackID = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
