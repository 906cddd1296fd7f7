import LectorCore

/// Rewind on resume (ResumeRewind decides when).
extension Narrator {
    /// Moves back `seconds` of listening (book time × the rate) from the word being heard, to
    /// the start of the sentence there, within the chapter (its start at most). Emits Seeked.
    ///
    /// ```swift
    /// narrator.rewind(seconds: 10)   // paused at 2:31 mid-sentence: resumes at 2:19, "The river ..."
    /// ```
    func rewind(seconds: Double) {
        guard let book, let text = book.chapterTexts[state.chapter] else { return }
        settleHeard()
        let back = Int64(seconds * state.rate * 1_000_000)
        let target = clock.offset(atTime: max(0, position - back))
        let start = TextSegmenter(text).sentenceStart(containing: min(target, resumePoint.offset))
        guard start < resumePoint.offset else { return }
        jump(toChapter: state.chapter, offset: start, announceSeek: true)
    }
}
