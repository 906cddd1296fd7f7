import LectorSSML

/// A validated `Speak` call: everything the synthesizer needs, checked before anything is queued.
///
/// ```swift
/// let request = try SpeechRequest(text: "Payment received", options: ["rate": .double(1.5)])
/// request.espeakRate   // 262 words per minute
/// ```
public struct SpeechRequest: Equatable, Sendable {
    /// The longest text one `Speak` accepts, in UTF-8 bytes (64 KiB: several pages). Longer texts
    /// are refused with `TextTooLong` rather than blocking the queue for an hour; books are read
    /// chapter by chapter instead.
    public static let maximumTextBytes = 64 * 1024
    /// `rate` 1.0 is espeak-ng's normal 175 words per minute; the range is what espeak-ng can do
    /// (80..450 wpm) rounded to friendly bounds.
    public static let rateRange: ClosedRange<Double> = 0.5...2.5
    /// `pitch` 1.0 is espeak-ng's 50; 0..2 maps to its whole 0..100 range.
    public static let pitchRange: ClosedRange<Double> = 0...2
    /// `volume` 1.0 is espeak-ng's normal loudness (100).
    public static let volumeRange: ClosedRange<Double> = 0...1
    public static let knownOptions: Set<String> = ["language", "voice", "rate", "pitch", "volume", "priority",
                                                   "ensure-audible", "digits", "ssml"]

    public var text: String
    public var language: String?
    public var voice: String?
    public var rate: Double = 1
    public var pitch: Double = 1
    public var volume: Double = 1
    public var priority: SpeechPriority = .message
    /// Raise the sink to the configured volume floor while this speaks (a payment alert on a
    /// sink left at 5 % is worthless). A muted sink stays muted unless the speech is `important`.
    public var ensureAudible = false
    /// How numbers are read: as numbers (espeak-ng's default), digit by digit, or as money.
    public var numberMode: NumberMode = .number
    /// The text is SSML (espeak-ng's subset), checked before it is queued.
    public var ssml = false
    /// The text holds `[[…]]` phonemes a lexicon put there (`Pronouncer`): synthesized with
    /// espeak-ng's `espeakPHONEMES`. Never set from a client's options, so a client's own "[[" is
    /// read as text.
    public var phonemeInput = false

    public init(text: String, options: [String: OptionValue] = [:]) throws {
        try Self.validate(text: text)
        self.text = text
        for (key, value) in options {
            switch key {
            case "language":
                let tag = try Self.string(key, value)
                guard LanguageTag.isWellFormed(tag) else {
                    throw LectorError.invalidArgument("option \"language\" must be a BCP 47 tag like \"en-GB\" or \"zh-CN\", got \"\(tag)\"")
                }
                language = tag
            case "voice":
                let name = try Self.string(key, value)
                guard !name.isEmpty else { throw LectorError.invalidArgument("option \"voice\" is empty") }
                voice = name
            case "rate": rate = try Self.number(key, value, in: Self.rateRange)
            case "pitch": pitch = try Self.number(key, value, in: Self.pitchRange)
            case "volume": volume = try Self.number(key, value, in: Self.volumeRange)
            case "priority": priority = try Self.choice(key, value)
            case "ensure-audible": ensureAudible = try Self.boolean(key, value)
            case "digits": numberMode = try Self.choice(key, value)
            case "ssml": ssml = try Self.boolean(key, value)
            default:
                let known = Self.knownOptions.sorted().joined(separator: ", ")
                throw LectorError.invalidArgument("unknown option \"\(key)\" (known: \(known))")
            }
        }
        if ssml { try SSMLCheck.validate(text) }
    }

    /// What the synthesizer is given: numbers rewritten for `digits` (plain text only: in SSML
    /// the markup decides), with the way back to offsets in `text` for SpeakingRange.
    public var spoken: TextRewrite {
        ssml ? TextRewrite(unchanged: text) : NumberReading.rewrite(text, mode: numberMode, language: language)
    }

    /// Words per minute for `espeak_SetParameter(espeakRATE)`.
    public var espeakRate: Int32 { Int32((175 * rate).rounded()) }
    /// 0..100 for `espeakPITCH`.
    public var espeakPitch: Int32 { Int32((50 * pitch).rounded()) }
    /// 0..100 for `espeakVOLUME`.
    public var espeakVolume: Int32 { Int32((100 * volume).rounded()) }

    static func validate(text: String) throws {
        if text.utf8.count > maximumTextBytes { throw tooLong(bytes: text.utf8.count) }
        if text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw LectorError.invalidArgument("text is empty: there is nothing to speak")
        }
    }

    /// TextTooLong for a text of `bytes` bytes (the bus refuses one this long before reading it).
    public static func tooLong(bytes: Int) -> LectorError {
        LectorError(.textTooLong, "text is \(bytes) bytes; the limit is \(maximumTextBytes) bytes (split it, or open it as a book)")
    }

    /// Decodes text that arrived as bytes (stdin, a file), refusing invalid UTF-8 with the offset
    /// of the first bad byte, so nothing is silently replaced by U+FFFD.
    public static func decodeUTF8(_ bytes: [UInt8]) throws -> String {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                scalars.append(scalar)
                offset += UTF8.width(scalar)
            case .emptyInput:
                return String(scalars)
            case .error:
                throw LectorError.invalidArgument("text is not valid UTF-8 (first bad byte at offset \(offset))")
            }
        }
    }

    private static func string(_ key: String, _ value: OptionValue) throws -> String {
        guard case .string(let string) = value else {
            throw LectorError.invalidArgument("option \"\(key)\" must be a string (s), got type \(value.signature)")
        }
        return string
    }

    private static func boolean(_ key: String, _ value: OptionValue) throws -> Bool {
        guard case .boolean(let flag) = value else {
            throw LectorError.invalidArgument("option \"\(key)\" must be a boolean (b), got type \(value.signature)")
        }
        return flag
    }

    /// One of an enumeration's names, e.g. `priority` or `digits`.
    private static func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, _ value: OptionValue) throws -> Choice
    where Choice.RawValue == String {
        let name = try string(key, value)
        guard let parsed = Choice(rawValue: name) else {
            let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw LectorError.invalidArgument("option \"\(key)\" must be one of \(known), got \"\(name)\"")
        }
        return parsed
    }

    /// Doubles, and integers for convenience (`gdbus call` sends `<2>` as an int32).
    private static func number(_ key: String, _ value: OptionValue, in range: ClosedRange<Double>) throws -> Double {
        let number: Double
        switch value {
        case .double(let d): number = d
        case .integer(let i): number = Double(i)
        default:
            throw LectorError.invalidArgument("option \"\(key)\" must be a number (d), got type \(value.signature)")
        }
        guard number.isFinite else {
            throw LectorError.invalidArgument("option \"\(key)\" must be a finite number, got \(number)")
        }
        guard range.contains(number) else {
            throw LectorError.invalidArgument("option \"\(key)\" must be between \(range.lowerBound) and \(range.upperBound), got \(number)")
        }
        return number
    }
}
