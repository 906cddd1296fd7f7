/// What an `<img>` says to a listener, from its attributes alone.
///
///     <img src="map.png" alt="A map of the island"/>      "A map of the island"
///     <img src="rule.png" alt=""/>                        nil: decorative
///     <img src="orn.png" role="presentation" alt="x"/>    nil: decorative
///     <img src="fig.png" aria-label="The harbour"/>       "The harbour"
///     <img src="photo.jpg"/>                              nil: nothing to say (the file name is no description)
enum ImageAlternative {
    /// Longest text alternative read (a megabyte-long `alt` is cut like a title).
    static func text(_ attributes: [String: String]) -> String? {
        if let role = attributes["role"]?.lowercased().split(whereSeparator: \.isWhitespace),
           role.contains("presentation") || role.contains("none") { return nil }
        let alternative = attributes["alt"] ?? attributes["aria-label"]
        guard let alternative else { return nil }
        let collapsed = MarkupElement.capped(XHTMLTextExtractor.collapsed(alternative))
        return collapsed.isEmpty ? nil : collapsed
    }

    /// The ids `aria-describedby` names, in order.
    static func descriptionIDs(_ attributes: [String: String]) -> [String] {
        (attributes["aria-describedby"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// True when `alternative` says nothing `caption` does not: a figure's `alt` repeating its
    /// `figcaption` (letters and digits compared, case aside) is read once.
    static func isRepeated(_ alternative: String, in caption: String) -> Bool {
        let wanted = normalized(alternative), said = normalized(caption)
        return !wanted.isEmpty && said.contains(wanted)
    }

    private static func normalized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.lowercased().unicodeScalars.filter {
            $0.properties.isAlphabetic || $0.properties.numericType != nil
        }))
    }
}
