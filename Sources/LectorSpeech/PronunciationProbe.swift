import Foundation
import LectorCore

/// Runs `PronunciationCheck` through espeak-ng: the sample is cut on a queue of its own, its
/// phonemes come from the engine thread (`SpeechEngine.phonemes`, background work that never
/// holds up speech), first with the book's voice and, if it fails, with the candidates, one by
/// one, until one reads it cleanly.
///
/// ```swift
/// PronunciationProbe.check(engine: engine, texts: [chapter], voice: japanese,
///                          candidates: { verdict in PronunciationCheck.candidates(for: verdict, ...) }) { report in
///     print(report?.sentence ?? "nothing to check")
/// }
/// ```
public enum PronunciationProbe {
    private static let queue = DispatchQueue(label: "io.github.lector.pronunciation")

    /// Starts `delay` seconds from now. `completion` (on the engine thread, or on the probe's
    /// queue) gets nil when the sample is
    /// too short to say anything or the voice could not be loaded.
    /// `afterSpeeches`: the engine's `speechesRun` when the book was opened: the work waits for
    /// the speech after it (the first audio goes first). `wanted` is asked along the way: once false (another book, another voice), the work
    /// stops and `completion` gets nil.
    public static func check(engine: SpeechEngine, texts: [String], voice: Voice, after delay: Double = 0,
                             afterSpeeches: Int? = nil, wanted: @escaping @Sendable () -> Bool = { true },
                             candidates: @escaping @Sendable (PronunciationVerdict) -> [Voice],
                             completion: @escaping @Sendable (PronunciationReport?) -> Void) {
        queue.asyncAfter(deadline: .now() + delay) {
            guard wanted() else { return completion(nil) }
            let sample = PronunciationSample(texts: texts)
            guard sample.isUsable else { return completion(nil) }
            engine.phonemesInBackground(of: sample.queries, voice: voice, afterSpeeches: afterSpeeches, wanted: wanted) { readings in
                guard let readings else { return completion(nil) }
                let verdict = sample.verdict(voice: voice.name, readings: readings)
                guard !verdict.isClean else { return completion(PronunciationReport(verdict: verdict)) }
                tryCandidates(engine: engine, sample: sample, verdict: verdict, remaining: candidates(verdict),
                              tried: [], wanted: wanted, completion: completion)
            }
        }
    }

    /// The first candidate reading cleanly wins; earlier ones that failed are remembered in `tried`.
    private static func tryCandidates(engine: SpeechEngine, sample: PronunciationSample, verdict: PronunciationVerdict,
                                      remaining: [Voice], tried: [String], wanted: @escaping @Sendable () -> Bool,
                                      completion: @escaping @Sendable (PronunciationReport?) -> Void) {
        guard wanted() else { return completion(nil) }
        guard let next = remaining.first else {
            return completion(PronunciationReport(verdict: verdict, suggestion: nil, tried: tried))
        }
        engine.phonemesInBackground(of: sample.queries, voice: next, wanted: wanted) { readings in
            let tried = tried + [next.name]
            if let readings {
                let candidate = sample.verdict(voice: next.name, readings: readings)
                if candidate.isClean {
                    return completion(PronunciationReport(verdict: verdict, suggestion: candidate, tried: tried))
                }
            }
            tryCandidates(engine: engine, sample: sample, verdict: verdict, remaining: Array(remaining.dropFirst()),
                          tried: tried, wanted: wanted, completion: completion)
        }
    }
}
