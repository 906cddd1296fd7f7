/// The writing system of a letter, by its Unicode block (Swift has no script property), and the
/// languages that write it: what `PronunciationCheck` reports and where it looks for a voice.
///
/// ```swift
/// WritingScript(of: "日")         // .han
/// WritingScript.han.languages    // ["cmn", "yue", "ja"]
/// ```
public enum WritingScript: String, Sendable, CaseIterable, Comparable {
    case latin = "Latin", greek = "Greek", cyrillic = "Cyrillic", armenian = "Armenian", hebrew = "Hebrew"
    case arabic = "Arabic", syriac = "Syriac", thaana = "Thaana", devanagari = "Devanagari", bengali = "Bengali"
    case gurmukhi = "Gurmukhi", gujarati = "Gujarati", oriya = "Oriya", tamil = "Tamil", telugu = "Telugu"
    case kannada = "Kannada", malayalam = "Malayalam", sinhala = "Sinhala", thai = "Thai", lao = "Lao"
    case tibetan = "Tibetan", myanmar = "Myanmar", georgian = "Georgian", hangul = "Hangul", ethiopic = "Ethiopic"
    case cherokee = "Cherokee", khmer = "Khmer", mongolian = "Mongolian", hiragana = "Hiragana"
    case katakana = "Katakana", han = "Han", other = "other"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Ranges of Unicode blocks, in order; a letter outside all of them is `.other`.
    private static let blocks: [(ClosedRange<UInt32>, WritingScript)] = [
        (0x0041...0x024F, .latin), (0x0250...0x02AF, .latin), (0x0370...0x03FF, .greek),
        (0x0400...0x052F, .cyrillic), (0x0530...0x058F, .armenian), (0x0590...0x05FF, .hebrew),
        (0x0600...0x06FF, .arabic), (0x0700...0x074F, .syriac), (0x0750...0x077F, .arabic),
        (0x0780...0x07BF, .thaana), (0x08A0...0x08FF, .arabic), (0x0900...0x097F, .devanagari),
        (0x0980...0x09FF, .bengali), (0x0A00...0x0A7F, .gurmukhi), (0x0A80...0x0AFF, .gujarati),
        (0x0B00...0x0B7F, .oriya), (0x0B80...0x0BFF, .tamil), (0x0C00...0x0C7F, .telugu),
        (0x0C80...0x0CFF, .kannada), (0x0D00...0x0D7F, .malayalam), (0x0D80...0x0DFF, .sinhala),
        (0x0E00...0x0E7F, .thai), (0x0E80...0x0EFF, .lao), (0x0F00...0x0FFF, .tibetan),
        (0x1000...0x109F, .myanmar), (0x10A0...0x10FF, .georgian), (0x1100...0x11FF, .hangul),
        (0x1200...0x139F, .ethiopic), (0x13A0...0x13FF, .cherokee), (0x1780...0x17FF, .khmer),
        (0x1800...0x18AF, .mongolian), (0x1C80...0x1C8F, .cyrillic), (0x1C90...0x1CBF, .georgian),
        (0x1E00...0x1EFF, .latin), (0x1F00...0x1FFF, .greek), (0x2C60...0x2C7F, .latin),
        (0x2D00...0x2D2F, .georgian), (0x2D80...0x2DDF, .ethiopic), (0x2DE0...0x2DFF, .cyrillic),
        (0x3005...0x3007, .han), (0x3040...0x309F, .hiragana), (0x30A0...0x30FF, .katakana),
        (0x3130...0x318F, .hangul), (0x31F0...0x31FF, .katakana), (0x3400...0x4DBF, .han),
        (0x4E00...0x9FFF, .han), (0xA640...0xA69F, .cyrillic), (0xA720...0xA7FF, .latin),
        (0xAB70...0xABBF, .cherokee), (0xAC00...0xD7AF, .hangul), (0xF900...0xFAFF, .han),
        (0xFB1D...0xFB4F, .hebrew), (0xFB50...0xFDFF, .arabic), (0xFE70...0xFEFF, .arabic),
        (0xFF21...0xFF5A, .latin), (0xFF66...0xFF9F, .katakana), (0x20000...0x3134F, .han),
    ]

    public init(of scalar: Unicode.Scalar) {
        let value = scalar.value
        var low = 0, high = Self.blocks.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let (range, script) = Self.blocks[middle]
            if value < range.lowerBound { high = middle - 1 } else if value > range.upperBound { low = middle + 1 } else {
                self = script
                return
            }
        }
        self = .other
    }

    /// Scripts whose characters each stand for a syllable or a word: read one by one, a reading
    /// of a word is the readings of its characters, so spelling cannot be told from reading.
    public var readsCharacterByCharacter: Bool {
        switch self {
        case .han, .hiragana, .katakana, .hangul: return true
        default: return false
        }
    }

    /// Languages that write this script, most widely read first (espeak-ng's tags). Where to look
    /// for a voice that reads it.
    public var languages: [String] {
        switch self {
        case .latin: return ["en"]
        case .greek: return ["el", "grc"]
        case .cyrillic: return ["ru", "uk", "bg", "sr", "mk", "be", "kk", "ky", "tt", "ba"]
        case .armenian: return ["hy", "hyw"]
        case .hebrew: return ["he"]
        case .arabic: return ["ar", "fa", "ur", "ps", "sd"]
        case .syriac: return []
        case .thaana: return ["dv"]
        case .devanagari: return ["hi", "mr", "ne", "kok", "sa"]
        case .bengali: return ["bn", "as", "bpy"]
        case .gurmukhi: return ["pa"]
        case .gujarati: return ["gu"]
        case .oriya: return ["or"]
        case .tamil: return ["ta"]
        case .telugu: return ["te"]
        case .kannada: return ["kn"]
        case .malayalam: return ["ml"]
        case .sinhala: return ["si"]
        case .thai: return ["th"]
        case .lao: return ["lo"]
        case .tibetan: return ["bo"]
        case .myanmar: return ["my"]
        case .georgian: return ["ka"]
        case .hangul: return ["ko"]
        case .ethiopic: return ["am", "ti"]
        case .cherokee: return ["chr"]
        case .khmer: return ["km"]
        case .mongolian: return ["mn"]
        case .hiragana, .katakana: return ["ja"]
        case .han: return ["cmn", "yue", "ja"]
        case .other: return []
        }
    }
}
