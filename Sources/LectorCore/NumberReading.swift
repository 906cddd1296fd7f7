/// Rewrites the numbers of a text so espeak-ng reads them as the `digits` option asks. Only numbers
/// (and the currency sign or code written with an amount) change; words never do. Numbers glued to
/// letters ("A320", "5G", "3rd") are left alone; Chinese characters around a number are fine.
///
/// What espeak-ng 1.51 does with the output (checked with `espeak-ng -x`):
/// - `number`: unchanged, except Chinese decimals: espeak-ng's Mandarin and Cantonese drop the
///   decimal point ("35.20" is heard as "35 2 0"), so they become "35点2 0" (三十五点二零).
/// - `digits`: runs of digits are spaced ("1234" -> "1 2 3 4", "one two three four"); separators
///   stay, so espeak says its own word for them in every language ("35.20" -> "3 5.2 0", "three
///   five point two zero"), except that Chinese gets "点" for the point, thousands commas
///   ("1,234") become spaces, and "-" or ":" between digits ("138-0013") gets spaces so it is read
///   as a pause rather than "dash" or "colon".
/// - `currency`: "€35.20", "35.20 EUR", "$5", "£3.50", "¥35.2", "35.20元", "35块", "35美元" in
///   English: "35 euros and 20 cents", "5 dollars", "3 pounds and 50 pence"; in Chinese: "35元2角"
///   for yuan (35.05 -> "35元零5分"), "35点2欧元" for others. Without a sign or code, a Chinese
///   amount with two decimals ("到账35.20") is yuan; an English one is left as a number. Other
///   languages: amounts are left alone. Other numbers are read as in `number` mode.
///
/// `language` is the language of the voice that will speak (a BCP 47 tag, nil means English);
/// Chinese is any tag whose first subtag is `zh`, `cmn` or `yue`. Only ASCII digits are numbers.
///
/// ```swift
/// NumberReading.apply(.digits, to: "Order 1234", language: "en")           // "Order 1 2 3 4"
/// NumberReading.apply(.currency, to: "Paid €35.20", language: "en")        // "Paid 35 euros and 20 cents"
/// NumberReading.apply(.currency, to: "支付宝到账35.20元", language: "zh-CN")  // "支付宝到账35元2角"
/// ```
public enum NumberReading {
    public static func apply(_ mode: NumberMode, to text: String, language: String?) -> String {
        rewrite(text, mode: mode, language: language).text
    }

    /// The rewritten text with the mapping back to `text`'s offsets (see `TextRewrite`).
    public static func rewrite(_ text: String, mode: NumberMode, language: String?) -> TextRewrite {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains(where: NumberToken.isDigit) else { return TextRewrite(unchanged: text) }
        let reader = Reader(text: scalars, mode: mode, language: Language(language))
        return reader.rewrite()
    }

    enum Language {
        case english, chinese, other

        init(_ tag: String?) {
            guard let tag else { self = .english; return }
            let primary = LanguageTag.normalized(tag).split(separator: "-").first.map(String.init) ?? ""
            switch primary {
            case "en": self = .english
            case "zh", "cmn", "yue": self = .chinese
            default: self = .other
            }
        }
    }

    /// One pass over the text, left to right.
    struct Reader {
        let text: [Unicode.Scalar]
        let mode: NumberMode
        let language: Language

        func rewrite() -> TextRewrite {
            var out = TextRewrite()
            var index = 0
            while index < text.count {
                let afterWord = index > 0 && isWordLetter(text[index - 1])
                if mode == .currency, !afterWord, let (end, spoken) = amount(at: index) {
                    out.replace(originalCount: end - index, with: spoken)
                    index = end
                } else if NumberToken.isDigit(text[index]) {
                    let token = NumberToken.scan(text, at: index, extraSeparators: mode == .digits)
                    if afterWord || (token.end < text.count && isWordLetter(text[token.end])) {
                        for i in token.start..<token.end { out.keep(text[i]) }
                    } else if mode == .digits {
                        spellDigits(token, into: &out)
                    } else {
                        readNumber(token, into: &out)
                    }
                    index = token.end
                } else {
                    out.keep(text[index])
                    index += 1
                }
            }
            return out
        }

        /// A letter of a word that numbers must not be split from (not a Chinese character).
        func isWordLetter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic && !scalar.properties.isIdeographic
        }

        // MARK: number and digits

        private func readNumber(_ token: NumberToken, into out: inout TextRewrite) {
            guard language == .chinese, let point = token.decimalPoint else {
                for i in token.start..<token.end { out.keep(text[i]) }
                return
            }
            for i in token.start..<point { out.keep(text[i]) }
            out.replace(originalCount: 1, with: "点")
            spaceDigits(from: point + 1, to: token.end, into: &out)
        }

        private func spellDigits(_ token: NumberToken, into out: inout TextRewrite) {
            var runStart = token.start
            for separator in token.separators + [token.end] {
                spaceDigits(from: runStart, to: separator, into: &out)
                guard separator < token.end else { break }
                switch text[separator] {
                case "." where language == .chinese: out.replace(originalCount: 1, with: "点")
                case "," where token.groupingCommas.contains(separator): out.replace(originalCount: 1, with: " ")
                case "-", ":": out.replace(originalCount: 1, with: " \(Character(text[separator])) ")
                default: out.keep(text[separator])
                }
                runStart = separator + 1
            }
        }

        /// Copies digits `[from, to)` with a space inserted between neighbours.
        private func spaceDigits(from: Int, to: Int, into out: inout TextRewrite) {
            for i in from..<to {
                if i > from { out.replace(originalCount: 0, with: " ") }
                out.keep(text[i])
            }
        }

        // MARK: currency

        /// An amount of money starting at `index` (sign, code or digits): its end and its reading.
        private func amount(at index: Int) -> (end: Int, spoken: String)? {
            guard language != .other else { return nil }
            if Currency.isSign(text[index]) {
                guard let token = quantity(at: skipSpace(index + 1)) else { return nil }
                let currency = Currency.sign(text[index], chinese: language == .chinese,
                                             hasFraction: !token.fractionDigits.isEmpty)
                return currency.map { (token.end, say(token, in: $0)) }
            }
            if let currency = code(at: index) {
                guard let token = quantity(at: skipSpace(index + 3)) else { return nil }
                return (token.end, say(token, in: currency))
            }
            guard NumberToken.isDigit(text[index]), let token = quantity(at: index, suffixAllowed: true) else {
                return nil
            }
            if let (currency, length) = chineseSuffix(at: token.end) {
                return (token.end + length, say(token, in: currency))
            }
            let after = skipSpace(token.end)
            if after < text.count, Currency.isSign(text[after]),
               after + 1 == text.count || !isWordLetter(text[after + 1]),
               let currency = Currency.sign(text[after], chinese: language == .chinese,
                                            hasFraction: !token.fractionDigits.isEmpty) {
                return (after + 1, say(token, in: currency))
            }
            if let currency = code(at: after) {
                return (after + 3, say(token, in: currency))
            }
            let gluedToWord = token.end < text.count && isWordLetter(text[token.end])
            if language == .chinese, !gluedToWord, token.decimalPoint != nil, token.fractionDigits.count == 2 {
                return (token.end, say(token, in: .yuan))   // "到账35.20"
            }
            return nil
        }

        /// A number that can be an amount at `index`, not glued to a following letter (unless a
        /// suffix may follow, which the caller checks).
        private func quantity(at index: Int, suffixAllowed: Bool = false) -> NumberToken? {
            guard index < text.count, NumberToken.isDigit(text[index]) else { return nil }
            let token = NumberToken.scan(text, at: index, extraSeparators: false)
            guard token.isQuantity else { return nil }
            if !suffixAllowed, token.end < text.count, isWordLetter(text[token.end]) { return nil }
            return token
        }

        private func skipSpace(_ index: Int) -> Int {
            index < text.count && (text[index] == " " || text[index] == "\u{A0}") ? index + 1 : index
        }

        /// A currency code at `index` standing alone as a word ("EUR", not "EURO").
        private func code(at index: Int) -> Currency? {
            guard index + 3 <= text.count, ("A"..."Z").contains(text[index]) else { return nil }
            if index > 0, isWordLetter(text[index - 1]) { return nil }
            if index + 3 < text.count, isWordLetter(text[index + 3]) { return nil }
            return Currency.code(String(String.UnicodeScalarView(text[index..<(index + 3)])))
        }

        private func chineseSuffix(at index: Int) -> (Currency, Int)? {
            for (word, currency) in Currency.chineseSuffixes
            where index + word.count <= text.count && Array(text[index..<(index + word.count)]) == word {
                return (currency, word.count)
            }
            return nil
        }

        private func say(_ token: NumberToken, in currency: Currency) -> String {
            language == .chinese ? chinese(token, currency) : english(token, currency)
        }

        /// "35 euros and 20 cents", "1 dollar", "50 cents", "0.125 dollars", "35.5 yen".
        private func english(_ token: NumberToken, _ currency: Currency) -> String {
            let major = trimmedInteger(token.integerDigits)
            let fraction = token.fractionDigits
            guard let minorName = currency.englishMinor, fraction.count <= 2 else {
                let number = fraction.allSatisfy({ $0 == "0" }) ? major : "\(major).\(fraction)"
                return "\(number) \(number == "1" ? currency.english.singular : currency.english.plural)"
            }
            let minor = Int(fraction.zeroPadded(to: 2)) ?? 0
            var parts: [String] = []
            if major != "0" || minor == 0 {
                parts.append("\(major) \(major == "1" ? currency.english.singular : currency.english.plural)")
            }
            if minor > 0 {
                parts.append("\(minor) \(minor == 1 ? minorName.singular : minorName.plural)")
            }
            return parts.joined(separator: " and ")
        }

        /// Yuan as "35元2角5分" ("35元零5分", "5角", "0元"); others as "35点2欧元".
        private func chinese(_ token: NumberToken, _ currency: Currency) -> String {
            let major = trimmedInteger(token.integerDigits)
            let fraction = token.fractionDigits
            guard currency == .yuan, fraction.count <= 2 else {
                let decimals = String(fraction.reversed().drop(while: { $0 == "0" }).reversed())
                let spoken = decimals.isEmpty ? major : "\(major)点\(decimals.map(String.init).joined(separator: " "))"
                return spoken + currency.chinese
            }
            let minor = Array(fraction.zeroPadded(to: 2))
            let jiao = minor[0], fen = minor[1]
            var spoken = major == "0" ? "" : "\(major)元"
            if jiao != "0" { spoken += "\(jiao)角" }
            if fen != "0" { spoken += (major != "0" && jiao == "0" ? "零" : "") + "\(fen)分" }
            return spoken.isEmpty ? "0元" : spoken
        }

        private func trimmedInteger(_ digits: String) -> String {
            let trimmed = digits.drop(while: { $0 == "0" })
            return trimmed.isEmpty ? "0" : String(trimmed)
        }
    }
}

private extension String {
    /// Pads with trailing zeros (a fraction "2" is 20 hundredths).
    func zeroPadded(to length: Int) -> String {
        count >= length ? self : self + String(repeating: "0", count: length - count)
    }
}
