/// One number in a text as `NumberReading` sees it: ASCII digit runs joined by single separators
/// (`.` `,`, and in digits mode `-` `:`), e.g. "1,234.50", "192.168.1.1", "138-0013".
///
/// ```swift
/// let token = NumberToken.scan(Array("€1,234.5 ok".unicodeScalars), at: 1, extraSeparators: false)
/// token.end              // 8
/// token.integerDigits    // "1234" (grouping commas dropped)
/// token.fractionDigits   // "5"
/// ```
struct NumberToken {
    let start: Int
    let end: Int
    /// Indices of the separators inside the token.
    let separators: [Int]
    /// English/Chinese thousands separators: "1,234,567".
    let groupingCommas: Set<Int>
    /// The decimal point of a plain ("35.20") or grouped ("1,234.50") decimal number.
    let decimalPoint: Int?
    /// An integer or decimal, possibly grouped: something that can be an amount of money.
    let isQuantity: Bool
    let integerDigits: String
    let fractionDigits: String

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    static func scan(_ text: [Unicode.Scalar], at start: Int, extraSeparators: Bool) -> NumberToken {
        let allowed: Set<Unicode.Scalar> = extraSeparators ? [".", ",", "-", ":"] : [".", ","]
        var index = start
        var separators: [Int] = []
        while true {
            while index < text.count, isDigit(text[index]) { index += 1 }
            guard index + 1 < text.count, allowed.contains(text[index]), isDigit(text[index + 1]) else { break }
            separators.append(index)
            index += 1
        }
        return NumberToken(text, start: start, end: index, separators: separators)
    }

    private init(_ text: [Unicode.Scalar], start: Int, end: Int, separators: [Int]) {
        self.start = start
        self.end = end
        self.separators = separators
        let commas = separators.filter { text[$0] == "," }
        let dots = separators.filter { text[$0] == "." }
        let onlyDotsAndCommas = commas.count + dots.count == separators.count
        // Run lengths between separators: "1,234.50" -> [1, 3, 2].
        let bounds = [start - 1] + separators + [end]
        let runs = zip(bounds, bounds.dropFirst()).map { $1 - $0 - 1 }

        var grouping: Set<Int> = []
        var point: Int?
        if onlyDotsAndCommas, !commas.isEmpty, dots.count <= 1, dots.first.map({ $0 > commas.last! }) ?? true,
           (1...3).contains(runs[0]), runs[1...commas.count].allSatisfy({ $0 == 3 }) {
            grouping = Set(commas)
            point = dots.first
        } else if onlyDotsAndCommas, commas.isEmpty, dots.count == 1 {
            point = dots[0]
        }
        groupingCommas = grouping
        decimalPoint = point
        isQuantity = separators.isEmpty || !grouping.isEmpty || point != nil

        let integerEnd = point ?? end
        integerDigits = String(String.UnicodeScalarView(text[start..<integerEnd].filter(Self.isDigit)))
        fractionDigits = point.map { String(String.UnicodeScalarView(text[($0 + 1)..<end])) } ?? ""
    }
}
