/// What is handed to espeak-ng 1.51 (Debian 12) is first cleared of the characters that crash it.
///
/// In 1.51, a word that a voice hands to another language's translator (English sends Tamil,
/// Korean or Malayalam letters to theirs), holding a character that language does not know,
/// makes espeak-ng fall back and free the translator it is still using: a use after free in
/// `TranslateRules` that kills the process (seen under the D-Bus fuzz: SIGSEGV in `espeak_Synth`).
/// espeak-ng 1.52 fixed it (commit 1da9ad10, "Add tertiary translator"). Each such character
/// becomes a space, one for one, so every offset of the text still holds:
/// - every unassigned, private-use or noncharacter code point: nothing to say, and what the
///   fuzz sent;
/// - the assigned ones found to trigger it with 1.51's English voice by scanning every code
///   point below U+D800 with an instrumented build: digits, signs and archaic letters of the
///   scripts English hands over (`knownTriggers`). A Tamil digit read by the Tamil voice is
///   dropped too on 1.51; words of those scripts are kept.
///
///     EspeakInputGuard.apply("Room \u{0BEC}", version: "1.51")   // "Room  "
///     EspeakInputGuard.apply("Room \u{0BEC}", version: "1.52.0") // unchanged
public enum EspeakInputGuard {
    /// Whether `version` (espeak_Info's, e.g. "1.51") has the bug: before 1.52.
    public static func isNeeded(version: String) -> Bool {
        let parts = version.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        guard parts.count == 2 else { return true }   // unknown: guard
        return parts[0] < 1 || (parts[0] == 1 && parts[1] < 52)
    }

    /// `text` with each character that may crash espeak-ng `version` replaced by a space.
    public static func apply(_ text: String, version: String) -> String {
        isNeeded(version: version) ? apply(text) : text
    }

    /// `text` with each character that may crash espeak-ng 1.51 replaced by a space; for a
    /// caller that checked `isNeeded(version:)` once.
    public static func apply(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isTrigger) else { return text }
        var view = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { view.append(isTrigger(scalar) ? " " : scalar) }
        return String(view)
    }

    static func isTrigger(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.value >= 0x80 else { return false }
        switch scalar.properties.generalCategory {
        case .unassigned, .privateUse: return true
        default: break
        }
        if scalar.properties.isNoncharacterCodePoint { return true }
        var low = 0, high = knownTriggers.count
        while low < high {
            let middle = (low + high) / 2
            if knownTriggers[middle].upperBound < scalar.value { low = middle + 1 } else { high = middle }
        }
        return low < knownTriggers.count && knownTriggers[low].contains(scalar.value)
    }

    /// Assigned (and, in older Unicode, unassigned) code points that trigger the crash with
    /// 1.51's English voice, in order.
    static let knownTriggers: [ClosedRange<UInt32>] = [
        0x0558...0x0558, 0x055A...0x055A, 0x055D...0x055D, 0x055F...0x055F, 0x0589...0x058F,
        0x0964...0x0965, 0x0970...0x0970, 0x09E4...0x09E5, 0x09F2...0x09FB, 0x09FD...0x09FF,
        0x0A64...0x0A65, 0x0A76...0x0A7F, 0x0AE4...0x0AE5, 0x0AF0...0x0AF8, 0x0AFD...0x0AFF,
        0x0B80...0x0B81, 0x0B84...0x0B84, 0x0B8B...0x0B8D, 0x0B91...0x0B91, 0x0B96...0x0B98,
        0x0B9B...0x0B9B, 0x0B9D...0x0B9D, 0x0BA0...0x0BA2, 0x0BA5...0x0BA7, 0x0BAB...0x0BAD,
        0x0BBA...0x0BBD, 0x0BC3...0x0BC5, 0x0BC9...0x0BC9, 0x0BCE...0x0BCF, 0x0BD1...0x0BD6,
        0x0BD8...0x0BFF, 0x0C80...0x0C81, 0x0C84...0x0C84, 0x0C8C...0x0C8D, 0x0C91...0x0C91,
        0x0CA9...0x0CA9, 0x0CB4...0x0CB4, 0x0CBA...0x0CBB, 0x0CC5...0x0CC5, 0x0CC9...0x0CC9,
        0x0CCE...0x0CD4, 0x0CD7...0x0CDD, 0x0CDF...0x0CDF, 0x0CE1...0x0D01, 0x0D04...0x0D04,
        0x0D0C...0x0D0D, 0x0D11...0x0D11, 0x0D29...0x0D29, 0x0D3A...0x0D3C, 0x0D45...0x0D45,
        0x0D49...0x0D49, 0x0D4F...0x0D56, 0x0D58...0x0D5F, 0x0D62...0x0D79, 0x0DC7...0x0DC9,
        0x0DCB...0x0DCE, 0x0DD5...0x0DD5, 0x0DD7...0x0DD7, 0x0DE0...0x0DF1, 0x0DF4...0x0DFF,
        0x10C6...0x10C6, 0x10C8...0x10CC, 0x10CE...0x10CF, 0x10FB...0x10FB, 0x1180...0x11A7,
        0x11C3...0x11FF, 0xA701...0xA716, 0xA720...0xA721, 0xA789...0xA78A, 0xA7CB...0xA7CF,
        0xA7D2...0xA7D2, 0xA7D4...0xA7D4, 0xA7DA...0xA7F1, 0xA806...0xA806, 0xA828...0xA83F,
        0xA874...0xA87F, 0xA8C4...0xA8C4, 0xA8C6...0xA8CF, 0xA8DA...0xA8F1, 0xA8F8...0xA8FA,
        0xA8FC...0xA8FC, 0xA92B...0xA92F, 0xA953...0xA95F, 0xA97D...0xA97F, 0xA9B3...0xA9B3,
        0xA9C0...0xA9CE, 0xA9DA...0xA9DF, 0xA9FF...0xA9FF, 0xAA37...0xAA3F, 0xAA4E...0xAA4F,
        0xAA5A...0xAA5F, 0xAA77...0xAA79, 0xAABF...0xAABF, 0xAAC1...0xAAC1, 0xAAC3...0xAADA,
        0xAADE...0xAADF, 0xAAF0...0xAAF1, 0xAAF6...0xAB00, 0xAB07...0xAB08, 0xAB0F...0xAB10,
        0xAB17...0xAB1F, 0xAB27...0xAB27, 0xAB2F...0xAB2F, 0xAB5B...0xAB5B, 0xAB6A...0xAB6F,
        0xABEB...0xABEF, 0xABFA...0xABFF, 0xD7C7...0xD7CA, 0xD7FC...0xD7FF
    ]
}
