import LectorInterface
import LectorXML

/// Checks the text of a `Speak` call with the `ssml` option before it is queued: well-formed XML,
/// a `<speak>` root, and only the SSML espeak-ng 1.51 understands (see `SSMLVocabulary`):
/// `<speak>`, `<voice>`, `<prosody>`, `<say-as>`, `<mark>`, `<s>`, `<p>`, `<sub>`, `<tts:style>`,
/// `<audio>`, `<emphasis>`, `<break>`, `<metadata>`. espeak-ng itself never complains: it skips
/// what it does not know, ends tags at the first ">", and speaks what it misreads, so a mistake
/// would be heard rather than reported. Not accepted although espeak-ng reads them: its HTML
/// tags (`<br>`, `<b>`, ...), which are not SSML, and `&nbsp;`, which is not XML.
///
/// libxml2 decides well-formedness (`SSMLReader`); `SSMLRules` adds espeak-ng's own rules;
/// `SSMLXMLErrors` turns libxml2's first error into a reason with what to change.
///
/// Why libxml2 directly, in a target of its own, rather than FoundationXML's `XMLParser` in
/// LectorCore (which would have kept LectorCore free of C without a new target). Measured with
/// this toolchain: `XMLParser` gives a line and column but no offset; its errors carry only a
/// code (no message, no position); every error it reports leaks (100,000 refused texts grew
/// the process by 7.8 MB, and any client may send bad SSML for as long as the daemon runs;
/// 600,000 refusals here leave it flat); it always parses in recovery mode with entities
/// substituted, and has no callback at `<!DOCTYPE`, so it cannot stop before the internal
/// subset declares entities. The SAX2 handler here sees each piece of markup with its byte
/// offset, loads no DTD and declares no entity. LectorCore keeps importing no C library in its
/// own code: it calls this target as LectorConfig calls TOMLKit.
///
/// ```swift
/// try SSMLCheck.validate("<speak>Hello <break time=\"500ms\"/> world</speak>")   // fine
/// try SSMLCheck.validate("<speak>Hello <b>world</speak>")
/// // LectorError.invalidArgument("invalid SSML at line 1, column 14: <b> is not an element ...")
/// ```
public enum SSMLCheck {
    /// Throws `LectorError.invalidArgument("invalid SSML at line L, column C: reason")`; lines and
    /// columns count from 1, columns in Unicode scalars. `Failed` when libxml2 cannot be loaded.
    public static func validate(_ text: String) throws(LectorError) {
        if let why = XMLReader.unavailable { throw LectorError(.failed, "SSML cannot be read: \(why)") }
        let text = SSMLText(text)
        guard let failure = firstProblem(text) else { return }
        let (line, column) = text.position(of: failure.offset)
        throw LectorError.invalidArgument("invalid SSML at line \(line), column \(column): \(failure.reason)")
    }

    /// The first problem in `text`, or nil if espeak-ng will read it as SSML.
    static func firstProblem(_ text: SSMLText) -> SSMLRules.Failure? {
        // libxml2 reads C strings and guesses UTF-16 from NUL bytes, so NUL never reaches it.
        if let nul = text.firstIndex(of: 0, in: 0..<text.count) {
            return SSMLRules.Failure(offset: nul, reason: "character U+0 is not allowed in XML")
        }
        let rules = SSMLRules()
        switch SSMLReader.read(text, to: rules) {
        case .read:
            return nil
        case .stopped:
            return rules.failure
        case .notWellFormed(let error):
            return SSMLXMLErrors.explain(error, in: text, open: rules.openElements)
        }
    }
}
