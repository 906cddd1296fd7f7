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
        // Possibly empty for the book's language while a passage's language has rules.
        return cachedPronouncer(chapterPronunciation.lexicons, language: book.language)
    }

    /// The lexicons for text in `language`, converted once a book.
    private func cachedPronouncer(_ bookLexicons: [PronunciationLexicon], language: String?) -> Pronouncer {
        let key = (book?.identity ?? "") + "\n" + (language ?? "") + "\n" + bookLexicons.map(\.name).joined(separator: "\n")
        if let cached = pronouncerCache[key] { return cached }
        let made = Pronouncer(listener: listenerLexicons, book: bookLexicons, language: language)
        pronouncerCache[key] = made
        logOnce(made.notes)
        return made
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
        // A passage in another language (a segment of its own) gets that language's lexicons.
        var speaking = pronouncer
        if speaking != nil, let book, let passage = passageLanguage(at: range.lowerBound), passage != book.language {
            speaking = cachedPronouncer(book.chapterPronunciations[state.chapter]?.lexicons ?? [], language: passage)
        }
        let prepared = EngineText.prepare(segmenterScalars.slice(range), endsPhrase: endsPhrase, pronouncer: speaking,
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
