import LectorInterface

/// Checks the text of a `Speak` call with the `ssml` option before it is queued: well-formed XML,
/// a `<speak>` root, and only the SSML espeak-ng 1.51 understands (see `SSMLVocabulary`):
/// `<speak>`, `<voice>`, `<prosody>`, `<say-as>`, `<mark>`, `<s>`, `<p>`, `<sub>`, `<tts:style>`,
/// `<audio>`, `<emphasis>`, `<break>`, `<metadata>`. espeak-ng itself never complains: it skips
/// what it does not know, ends tags at the first ">", and speaks what it misreads, so a mistake
/// would be heard rather than reported. Not accepted although espeak-ng reads them: its HTML
/// tags (`<br>`, `<b>`, ...), which are not SSML, and `&nbsp;`, which is not XML.
///
/// ```swift
/// try SSMLCheck.validate("<speak>Hello <break time=\"500ms\"/> world</speak>")   // fine
/// try SSMLCheck.validate("<speak>Hello <b>world</speak>")
/// // LectorError.invalidArgument("invalid SSML at line 1, column 14: <b> is not an element ...")
/// ```
public enum SSMLCheck {
    /// Throws `LectorError.invalidArgument("invalid SSML at line L, column C: reason")`; lines and
    /// columns count from 1, columns in Unicode scalars.
    public static func validate(_ text: String) throws {
        var parser = SSMLParser(text)
        do {
            try parser.run()
        } catch {
            throw LectorError.invalidArgument("invalid SSML at line \(error.line), column \(error.column): \(error.reason)")
        }
    }
}
