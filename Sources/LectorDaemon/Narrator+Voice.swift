import LectorCore

/// The voice reading the book, changed while it plays (Narrator1.Voice, `read --voice`).
extension Narrator {
    /// The word being heard is said again in the new voice: what is buffered ahead was
    /// synthesized in the old one, so it goes (paused too: Play would otherwise play seconds of
    /// the old voice first). Seeked tells clients, as the word's place is estimated anew.
    ///
    /// ```swift
    /// narrator.setVoice(try catalog.resolve(language: nil, voice: "en-gb"))
    /// ```
    func setVoice(_ newVoice: Voice) {
        guard newVoice != voice else { return }
        voice = newVoice
        guard book != nil, state.status != .stopped else { return }
        settleHeard()
        jump(toChapter: state.chapter, offset: resumePoint.offset, announceSeek: true)
    }
}
