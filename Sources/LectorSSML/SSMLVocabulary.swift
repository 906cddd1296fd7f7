/// The SSML espeak-ng 1.51 understands (`ssmltags` and `ProcessSsmlTag()` in its `ssml.c`, and
/// docs/markup.md): which elements, which attributes, which values. Anything else espeak-ng
/// silently ignores or misreads, so `SSMLCheck` refuses it with a reason.
///
/// ```swift
/// SSMLVocabulary.problem(element: "break", attribute: "time", value: "1.5s")
/// // "time=\"1.5s\" is not whole milliseconds or seconds (e.g. 500ms, 2s): espeak-ng would pause only 1 ms"
/// ```
enum SSMLVocabulary {
    /// Element -> its attributes. `metadata` may hold any markup (espeak-ng skips its text).
    static let attributes: [String: Set<String>] = [
        "speak": ["xml:lang", "xml:base", "version"],
        "voice": ["xml:lang", "name", "age", "variant", "gender"],
        "prosody": ["rate", "volume", "pitch", "range"],
        "say-as": ["interpret-as", "format", "detail"],
        "mark": ["name"],
        "s": ["xml:lang"],
        "p": ["xml:lang"],
        "sub": ["alias"],
        "tts:style": ["field", "mode"],
        "audio": ["src"],
        "emphasis": ["level"],
        "break": ["strength", "time"],
        "metadata": [],
    ]

    static let required: [String: String] = ["say-as": "interpret-as", "mark": "name", "sub": "alias",
                                              "tts:style": "field"]
    /// SSML's empty elements: espeak-ng ignores their closing tag, so content would be misplaced.
    static let empty: Set<String> = ["break", "mark"]

    static var supportedList: String {
        attributes.keys.sorted().map { "<\($0)>" }.joined(separator: ", ")
    }

    /// Why an element name is refused, or nil if espeak-ng supports it.
    static func problem(element name: String) -> String? {
        if attributes[name] != nil { return nil }
        if name == "phoneme" {
            return "<phoneme> is not supported by espeak-ng 1.51 (it speaks both the phonemes and the text)"
        }
        if attributes[name.lowercased()] != nil {
            return "<\(name)> must be written in lowercase, <\(name.lowercased())>"
        }
        return "<\(name)> is not an element espeak-ng supports (supported: \(supportedList))"
    }

    /// Why an attribute or its value is refused, or nil.
    static func problem(element: String, attribute: String, value: String) -> String? {
        // Namespace declarations are harmless anywhere (`xmlns="http://www.w3.org/2001/10/synthesis"`).
        if attribute == "xmlns" || attribute.hasPrefix("xmlns:") || attribute.hasPrefix("xsi:") { return nil }
        guard let known = attributes[element], element != "metadata" else { return nil }
        guard known.contains(attribute) else {
            let list = known.sorted().joined(separator: ", ")
            return "<\(element)> has no attribute \"\(attribute)\" that espeak-ng reads"
                + (list.isEmpty ? "" : " (it reads: \(list))")
        }
        let allowed: [String]
        switch (element, attribute) {
        case ("say-as", "interpret-as"): allowed = ["characters", "tts:char", "tts:key", "tts:digits", "telephone"]
        case ("say-as", "format"): allowed = ["glyphs"]
        case ("emphasis", "level"): allowed = ["none", "reduced", "moderate", "strong", "x-strong"]
        case ("break", "strength"): allowed = ["none", "x-weak", "weak", "medium", "strong", "x-strong"]
        case ("voice", "gender"): allowed = ["male", "female", "neutral"]
        case ("tts:style", "field"): allowed = ["punctuation", "capital_letters"]
        case ("say-as", "detail"), ("voice", "age"), ("voice", "variant"):
            return isWholeNumber(value) ? nil : "\(attribute)=\"\(value)\" must be a whole number"
        case ("break", "time"):
            return breakTime(value)
        case ("prosody", _):
            return prosody(attribute, value)
        default:
            return nil
        }
        return allowed.contains(value) ? nil
            : "\(attribute)=\"\(value)\" is not one espeak-ng knows (use one of: \(allowed.joined(separator: ", ")))"
    }

    /// `tts:style`'s `mode` depends on its `field`.
    static func problem(styleField field: String?, mode: String?) -> String? {
        guard let field, let mode else { return mode == nil ? "<tts:style> needs a mode" : nil }
        let allowed = field == "punctuation" ? ["none", "all", "some"] : ["no", "icon", "spelling", "pitch"]
        return allowed.contains(mode) ? nil
            : "mode=\"\(mode)\" is not one espeak-ng knows for field=\"\(field)\" (use one of: \(allowed.joined(separator: ", ")))"
    }

    private static func isWholeNumber(_ value: String) -> Bool {
        !value.isEmpty && value.unicodeScalars.allSatisfy { ("0"..."9").contains($0) }
    }

    /// espeak-ng reads the leading whole number, then "s" for seconds, else milliseconds.
    private static func breakTime(_ value: String) -> String? {
        for unit in ["ms", "s"] where value.hasSuffix(unit) && isWholeNumber(String(value.dropLast(unit.count))) {
            return nil
        }
        let whole = String(value.unicodeScalars.prefix { ("0"..."9").contains($0) })
        let hint = value.contains(".") && !whole.isEmpty ? ": espeak-ng would pause only \(whole) ms" : ""
        return "time=\"\(value)\" is not whole milliseconds or seconds (e.g. 500ms, 2s)\(hint)"
    }

    private static func prosody(_ attribute: String, _ value: String) -> String? {
        let names: [String]
        let units: [String]
        switch attribute {
        case "rate": names = ["x-slow", "slow", "medium", "fast", "x-fast", "default"]; units = ["%"]
        case "volume": names = ["silent", "x-soft", "soft", "medium", "loud", "x-loud", "default"]; units = ["%", "dB"]
        default: names = ["x-low", "low", "medium", "high", "x-high", "default"]; units = ["%", "st", "Hz"]
        }
        if names.contains(value) { return nil }
        var number = Substring(value)
        if number.first == "+" || number.first == "-" { number = number.dropFirst() }
        if let unit = units.first(where: { number.hasSuffix($0) }) { number = number.dropLast(unit.count) }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        if (1...2).contains(parts.count), parts.allSatisfy({ isWholeNumber(String($0)) }) { return nil }
        return "\(attribute)=\"\(value)\" is not a value espeak-ng reads (use one of \(names.joined(separator: ", ")), "
            + "or a number with optional sign and unit \(units.joined(separator: " or ")), e.g. \"+10%\")"
    }
}
