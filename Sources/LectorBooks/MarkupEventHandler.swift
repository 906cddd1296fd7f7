/// Receives what `XMLSAXParser` or `HTMLDocumentParser` finds, in document order: every start
/// has a matching end (libxml2's HTML parser closes what a document leaves open), and text
/// arrives with its character references already decoded.
protocol MarkupEventHandler: AnyObject {
    /// True once the handler has read all it wants, or refuses to go deeper; the parser then stops.
    var stoppedOnPurpose: Bool { get }
    /// Where an element nested deeper than `HTMLDocumentParser.maximumDepth` started, if one did.
    var tooDeepAtLine: Int? { get }
    /// `qualifiedName` as written in XML (`dc:title`), lowercased in HTML; attribute names
    /// qualified, lowercased in HTML.
    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int)
    func endElement(_ qualifiedName: String, line: Int)
    func characters(_ text: String, line: Int)
}
