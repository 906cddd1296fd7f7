/// A chapter that would speak only its title (a part's title page before its first chapter, a
/// table-of-contents entry whose target holds nothing but a heading, or nothing at all) is no
/// track of its own: it merges into the next chapter, which then starts where it started and
/// carries both titles.
///
///     "Live Systems Manual" (a title page) · "About" (a part page) · "1. About this manual"
///     → "Live Systems Manual — About — 1. About this manual", reading all three headings first
///
/// Opening must stay fast, so only what is cheap to tell is merged: a chapter in a small
/// document (`EPUBOpener.smallDocumentSize`, parsed whole anyway), and the first chapter of any
/// document when the next chapter starts in the same document (its first `probeBytes` parsed
/// only until the next chapter's anchor or `probeScalars` of text). A title-only chapter deep
/// inside a long document stays a chapter that speaks its title.
enum TitleOnlyChapters {
    /// More text than a title page holds.
    static let probeScalars = 600
    /// How much of a long document is inflated to find that out.
    static let probeBytes = 4 << 10

    static func merged(_ chapters: [PlannedChapter], source: EPUBChapterSource)
        throws(BookError) -> (chapters: [PlannedChapter], mergedTitles: [String]) {
        guard chapters.count > 1 else { return (chapters, []) }
        let planned = source.replanned(chapters)
        var result: [PlannedChapter] = []
        var merged: [String] = []
        var carried: (chapter: PlannedChapter, start: ChapterStart?)?
        for index in chapters.indices {
            var chapter = chapters[index]
            var inherited: ChapterStart?
            if let before = carried {
                // A chapter of headings only is read first; one with nothing at all only lends its title.
                if let start = before.start {
                    chapter.start = start
                    inherited = start
                }
                chapter.title = MarkupElement.capped(before.chapter.title + " — " + chapter.title)
                chapter.depth = min(before.chapter.depth, chapter.depth)
                carried = nil
            }
            let holds = index + 1 < chapters.count ? try planned.titleOnly(chapter: index) : .no
            if holds != .no {
                merged.append(chapters[index].title)
                carried = (chapter, holds == .headings ? chapter.start : inherited)
                continue
            }
            result.append(chapter)
        }
        return (result, merged)
    }
}
