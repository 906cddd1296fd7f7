import LectorCore

/// How the narrator says a book's words: the book's `ssml:ph` elements and PLS lexicons
/// (`Chapter.pronunciation`) and the listener's config.toml lexicons, applied to each segment as
/// it goes to espeak-ng (`EngineText.prepare`). Word events come back in what espeak-ng was
/// given and are mapped to the chapter's offsets (`Synthesis.rewrite`), so SpeakingRange, the
/// read-along highlight and bookmarks name the book's own word ("S.E.") while espeak-ng says
/// "southeast".
extension Narrator {
    /// The pronouncer for `chapter` of the open book, nil when nothing applies (the fast path:
    /// the engine text is the chapter's own, one scalar for one). Problems are logged once a book.
    func makePronouncer(chapter: Int) -> Pronouncer? {
        guard let book else { return nil }
        let chapterPronunciation = book.chapterPronunciations[chapter] ?? ChapterPronunciation()
        guard !chapterPronunciation.isEmpty || !listenerLexicons.isEmpty else { return nil }
        let key = book.identity + "\n" + chapterPronunciation.lexicons.map(\.name).joined(separator: "\n")
        let pronouncer: Pronouncer
        if let cached = pronouncerCache, cached.key == key {
            pronouncer = cached.pronouncer
        } else {
            pronouncer = Pronouncer(listener: listenerLexicons, book: chapterPronunciation.lexicons, language: book.language)
            pronouncerCache = (key, pronouncer)
            logOnce(pronouncer.notes)
        }
        return pronouncer.isEmpty && chapterPronunciation.phonemeRuns.isEmpty ? nil : pronouncer
    }

    /// What espeak-ng is given for `range` of the chapter, and the way back to its offsets.
    func engineText(_ range: Range<Int>, endsPhrase: Bool) -> Pronouncer.Prepared {
        var notes: [String] = []
        var runs: [PhonemeRun] = []
        if pronouncer != nil, let book, let all = book.chapterPronunciations[state.chapter]?.phonemeRuns {
            for run in all where run.range.lowerBound >= range.lowerBound && run.range.upperBound <= range.upperBound {
                runs.append(PhonemeRun(range: (run.range.lowerBound - range.lowerBound)..<(run.range.upperBound - range.lowerBound),
                                       phonemes: run.phonemes, alphabet: run.alphabet))
            }
        }
        let prepared = EngineText.prepare(segmenterScalars[range], endsPhrase: endsPhrase, pronouncer: pronouncer,
                                          phonemeRuns: runs, notes: &notes)
        logOnce(notes)
        return prepared
    }

    private func logOnce(_ notes: [String]) {
        for note in notes where loggedPronunciationNotes.insert(note).inserted {
            Journal.log(.notice, note, fields: book.map { ["LECTOR_BOOK": $0.url.path] } ?? [:])
        }
    }
}
