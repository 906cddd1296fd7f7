import LectorCore

/// MPRIS transport that moves the position: Next, Previous, Seek, SetPosition, Volume.
extension Narrator {
    func next() {
        guard let chapter = state.nextChapter else { return }   // CanGoNext false: nothing
        jump(toChapter: chapter, offset: 0, announceSeek: chapter == state.chapter)
    }

    /// More than 3 s into a chapter restarts it (a jump within the track: Seeked(0)).
    func previous() {
        guard let chapter = state.previousTarget(atSeconds: Double(position) / 1e6) else { return }
        jump(toChapter: chapter, offset: 0, announceSeek: chapter == state.chapter)
    }

    /// Relative seek: below 0 clamps to the start, past the end acts like Next (the spec).
    func seek(by microseconds: Int64) {
        guard book != nil else { return }
        let target = position.addingReportingOverflow(microseconds)
        let time = target.overflow ? (microseconds > 0 ? Int64.max : 0) : max(0, target.partialValue)
        if time > clock.length {
            if state.nextChapter != nil { next() } else { endOfBook() }
            return
        }
        jump(toChapter: state.chapter, offset: clock.offset(atTime: time), time: time, announceSeek: true)
    }

    /// Absolute seek within the current chapter; ignored for another track id or out of range (the
    /// spec). The range is the announced length (what the client saw) or the refined one.
    func setPosition(_ microseconds: Int64, track: String) {
        guard book != nil, track == trackID, microseconds >= 0, microseconds <= max(clock.length, announcedLength) else { return }
        jump(toChapter: state.chapter, offset: clock.offset(atTime: microseconds), time: microseconds, announceSeek: true)
    }

    func setVolume(_ volume: Double) {
        stream?.gain = volume
        update { $0.volume = volume }
    }

    /// A chapter's length in normal-rate microseconds: the announced one for the current chapter
    /// (stable while it plays), the book's learned speed for the others.
    func length(ofChapter chapter: Int) -> Int64 {
        if chapter == state.chapter, announcedLength > 0 { return announcedLength }
        if chapter == state.chapter, clock.scalarCount > 0 { return clock.length }
        guard let count = book?.chapterScalarCounts[chapter] else { return 0 }
        return ChapterClock(scalarCount: count, scalarsPerSecond: clock.scalarsPerSecond).length
    }

    /// The bookmark: chapter and the word last heard.
    var resumePoint: (chapter: Int, offset: Int) { (state.chapter, heardOffset) }
}
