/// The currencies `NumberReading` reads as money, with their names in English and Chinese and the
/// signs, codes and Chinese suffixes that mark an amount.
///
/// ```swift
/// Currency.code("EUR")?.english   // ("euro", "euros")
/// ```
struct Currency: Equatable {
    let code: String
    let english: (singular: String, plural: String)
    /// Nil: no minor unit is spoken (yen).
    let englishMinor: (singular: String, plural: String)?
    let chinese: String

    static func == (a: Currency, b: Currency) -> Bool { a.code == b.code }

    static let euro = Currency(code: "EUR", english: ("euro", "euros"), englishMinor: ("cent", "cents"), chinese: "欧元")
    static let dollar = Currency(code: "USD", english: ("dollar", "dollars"), englishMinor: ("cent", "cents"), chinese: "美元")
    static let pound = Currency(code: "GBP", english: ("pound", "pounds"), englishMinor: ("penny", "pence"), chinese: "英镑")
    static let yuan = Currency(code: "CNY", english: ("yuan", "yuan"), englishMinor: ("fen", "fen"), chinese: "元")
    static let yen = Currency(code: "JPY", english: ("yen", "yen"), englishMinor: nil, chinese: "日元")

    /// Three-letter codes (and RMB) written before or after an amount.
    static func code(_ letters: String) -> Currency? {
        switch letters {
        case "EUR": euro
        case "USD": dollar
        case "GBP": pound
        case "CNY", "RMB": yuan
        case "JPY": yen
        default: nil
        }
    }

    /// A sign before or after an amount. `¥` is yuan in Chinese text or with a fraction
    /// ("¥35.2"), else yen ("¥500").
    static func sign(_ scalar: Unicode.Scalar, chinese: Bool, hasFraction: Bool) -> Currency? {
        switch scalar {
        case "€": euro
        case "$": dollar
        case "£": pound
        case "¥", "￥": chinese || hasFraction ? yuan : yen
        default: nil
        }
    }

    static func isSign(_ scalar: Unicode.Scalar) -> Bool { "€$£¥￥".unicodeScalars.contains(scalar) }

    /// Chinese unit words written right after an amount, longest first so 美元 wins over 元.
    static let chineseSuffixes: [(word: [Unicode.Scalar], currency: Currency)] = [
        ("人民币", yuan), ("美元", dollar), ("欧元", euro), ("英镑", pound), ("日元", yen),
        ("元", yuan), ("块", yuan), ("円", yen),
    ].map { (Array($0.0.unicodeScalars), $0.1) }
}
