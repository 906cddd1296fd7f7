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
    var chapterTexts: [Int: String] = [:]
    /// Each loaded chapter's passages in other languages (`Chapter.languageRuns`).
    var chapterLanguages: [Int: [LanguageRun]] = [:]
    /// Nesting of each chapter in the table of contents (0 = top level), for chapter lists.
    var chapterDepths: [Int] = []

    var chapterCount: Int { chapterTitles.count }

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
