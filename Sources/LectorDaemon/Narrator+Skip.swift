import LectorCore

/// `lector skip -15s | +30s | +2m`, Narrator1.Skip, and media keys with `next-previous = "skip"`.
extension Narrator {
    /// Moves `microseconds` (normal-rate time, as MPRIS Seek: at 2× a 30 s skip is 15 s of
    /// listening) from the word being heard, across chapter boundaries, landing on a word start,
    /// clamped at the book's start and at its last word. The playback status is kept. A chapter
    /// not read from the book yet is entered at its start (its length is not known).
    ///
    /// ```swift
    /// narrator.skip(by: -15_000_000)   // 0:08 into chapter 4: 0:53 of chapter 3's 1:00
    /// narrator.skip(by: 30_000_000)
    /// ```
    func skip(by microseconds: Int64) {
        guard let book else { return }
        let (chapter, time) = skipTarget(from: (state.chapter, position), by: microseconds, in: book)
        let offset: Int
        if let time {
            offset = chapterClock(chapter, of: book).map { $0.offset(atTime: time) } ?? 0
        } else {
            // Past the book's end: its last word, so narration ends as it would have.
            offset = max(0, (book.chapterScalarCounts[chapter] ?? 1) - 1)
        }
        jump(toChapter: chapter, offset: offset, time: chapter == state.chapter ? time : nil,
             announceSeek: chapter == state.chapter || offset > 0)
    }

    /// The chapter and time (nil: the last word of the book) `microseconds` away from `start`.
    private func skipTarget(from start: (chapter: Int, time: Int64), by microseconds: Int64,
                            in book: OpenBook) -> (chapter: Int, time: Int64?) {
        var chapter = start.chapter
        var (time, overflow) = start.time.addingReportingOverflow(microseconds)
        if overflow { time = microseconds > 0 ? .max : .min }
        while time < 0 {
            guard chapter > 0, let previous = chapterClock(chapter - 1, of: book) else { return (chapter, 0) }
            chapter -= 1
            time += previous.length
        }
        while let clock = chapterClock(chapter, of: book), time > clock.length {
            guard chapter + 1 < book.chapterCount else { return (chapter, nil) }
            time -= clock.length
            chapter += 1
            if book.chapterTexts[chapter] == nil { return (chapter, 0) }
        }
        return (chapter, time)
    }

    /// A chapter's clock at the speed learned from the book: the narrator's own for the chapter
    /// being heard (Position is on it), nil for one not read from the book yet.
    private func chapterClock(_ chapter: Int, of book: OpenBook) -> ChapterClock? {
        if chapter == state.chapter, clock.scalarCount > 0 { return clock }
        guard let count = book.chapterScalarCounts[chapter] else { return nil }
        return ChapterClock(scalarCount: count, scalarsPerSecond: clock.scalarsPerSecond)
    }
}
