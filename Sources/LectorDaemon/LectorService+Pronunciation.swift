import Foundation
import LectorBus
import LectorCore
import LectorLoop
import LectorSpeech

/// Can the open book's voice read it? A sample of the chapter being read goes through espeak-ng's
/// text-to-phonemes with that voice (`PronunciationProbe`: on the engine thread, as background
/// work that starts once a speech has run since it was queued, then runs while no speech waits
/// and for 8 ms after each speech, so that it never holds up the first audio; a sentence being
/// synthesized holds it off, so the result comes between the first sentences), and the letters it names, spells, skips or reads through another language
/// are counted (`PronunciationCheck`, LectorCore). Above the threshold: a journal warning, the
/// Narrator1.Book keys `voice-warning` and `suggested-voice`, `lector status` and `lector doctor`.
/// Run again when the voice changes.
extension LectorService {
    /// How long after an Open (or a voice change) the check starts (the engine holds it back
    /// until the first speech anyway).
    static let pronunciationDelaySeconds = 0.0
    /// Chapters' texts a sample is taken from, at most (from the one being heard on).
    static let pronunciationChapters = 6

    func checkPronunciation() {
        let generation = pronunciationTicket.advance()
        let hadReport = pronunciation != nil
        pronunciation = nil
        pronunciationNeedsText = false
        if hadReport { emitBookChanged() }
        guard let book = narrator.book, let chosen = narrator.voice else { return }
        // A neural voice reads with espeak-ng's phonemes: what it can say is what that voice can.
        let voice = self.catalog.reader(for: chosen) ?? chosen
        let texts = pronunciationTexts()
        let catalog = catalog, language = book.language, path = book.url.path
        let engine = engine
        let ticket = pronunciationTicket
        PronunciationProbe.check(engine: engine, texts: texts, voice: voice, after: Self.pronunciationDelaySeconds,
                                 afterSpeeches: engine.speechesRun, wanted: { ticket.get() == generation }, candidates: { verdict in
            PronunciationCheck.candidates(for: verdict, bookLanguage: language, current: voice, catalog: catalog)
        }) { report in
            LoopInbox.post { [weak self] in
                guard let self, generation == self.pronunciationTicket.get() else { return }
                self.pronunciationChecked(report, textsUsed: texts.count, path: path)
            }
        }
    }

    /// The texts a sample is taken from: the chapter being heard and those after it already
    /// read from the book, at most `pronunciationChapters`.
    private func pronunciationTexts() -> [String] {
        guard let book = narrator.book else { return [] }
        var texts: [String] = []
        var chapter = narrator.state.chapter
        while texts.count < Self.pronunciationChapters, book.chapterTitles.indices.contains(chapter) {
            if let text = book.chapterTexts[chapter] { texts.append(text) }
            chapter += 1
        }
        return texts
    }

    private func pronunciationChecked(_ report: PronunciationReport?, textsUsed: Int, path: String) {
        guard let report else {
            // Too little text to tell (a title page): again with the chapters read since, or
            // when more are read.
            if pronunciationTexts().count > textsUsed { return checkPronunciation() }
            pronunciationNeedsText = narrator.book.map { $0.chapterTexts.count < $0.chapterCount } ?? false
            return
        }
        pronunciation = report
        let fields = ["LECTOR_BOOK": path, "LECTOR_VOICE": report.verdict.voice,
                      "LECTOR_UNPRONOUNCED": String(format: "%.3f", report.verdict.share)]
        if report.isProblem {
            Journal.log(.warning, report.sentence, fields: fields)
        } else {
            Journal.log(.info, report.sentence, fields: fields)
        }
        emitBookChanged()
    }

    private func emitBookChanged() {
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: ["Book"])
    }

    /// A neural voice could not speak (espeak-ng reads instead): Book's `voice-problem`; nil when
    /// it speaks again.
    func neuralVoiceProblem(voice: String, message: String?) {
        if let message {
            voiceProblem = (voice, message)
        } else if voiceProblem?.voice == voice {
            voiceProblem = nil
        } else {
            return
        }
        if narrator.voice?.name == voice { emitBookChanged() }
    }

    /// Narrator1.Book's keys for the check (documented in dbus/io.github.lector.Narrator1.xml).
    func writePronunciation(_ writer: MessageWriter) throws {
        if let problem = [library.voiceNote, voiceProblem].compactMap({ $0 }).last(where: { $0.voice == narrator.voice?.name }) {
            try writer.entry("voice-problem", "s") { try $0.append(BusText.capped(problem.message, maxCharacters: 512)) }
        }
        guard let report = pronunciation else { return }
        let verdict = report.verdict
        try writer.entry("unpronounced", "d") { try $0.append(verdict.share) }
        guard report.isProblem else { return }
        try writer.entry("unpronounced-scripts", "as") { try $0.appendStrings(verdict.scripts.map(\.rawValue)) }
        try writer.entry("unpronounced-examples", "as") { try $0.appendStrings(verdict.examples) }
        if let failure = verdict.failure {
            try writer.entry("unpronounced-how", "s") { try $0.append(failure.rawValue) }
        }
        try writer.entry("suggested-voice", "s") { try $0.append(report.suggestion?.voice ?? "") }
        try writer.entry("voice-warning", "s") { try $0.append(BusText.capped(report.sentence, maxCharacters: 512)) }
    }
}
