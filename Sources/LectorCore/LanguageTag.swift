/// BCP 47 language tags as clients send them (`en-GB`, `zh-CN`, `pt_BR`), reduced to the
/// lowercase, dash-separated form espeak-ng lists its languages in.
public enum LanguageTag {
    /// Loose BCP 47 shape: a 2..8 letter primary subtag, then 1..8 alphanumeric subtags.
    /// `_` counts as `-`, as in POSIX locales (`pt_BR`).
    public static func isWellFormed(_ tag: String) -> Bool {
        let parts = normalized(tag).split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...8).contains(first.count),
              first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (1...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    public static func normalized(_ tag: String) -> String {
        String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
    }

    /// The tag, then each shorter prefix: `zh-hant-tw` → `zh-hant-tw`, `zh-hant`, `zh`.
    public static func fallbacks(_ tag: String) -> [String] {
        var parts = normalized(tag).split(separator: "-").map(String.init)
        var result: [String] = []
        while !parts.isEmpty {
            result.append(parts.joined(separator: "-"))
            parts.removeLast()
        }
        return result
    }

    /// The primary language subtag, lowercase: `en-US` → `en`, `pt_BR` → `pt`; nil for "".
    public static func primary(_ tag: String) -> String? {
        fallbacks(tag).last
    }
}
