/// Receives what `HTMLDocumentParser` finds, in document order, like an `XMLParserDelegate`:
/// every start has a matching end (libxml2 closes what the document leaves open), and text
/// arrives with its character references already decoded.
protocol HTMLEventHandler: AnyObject {
    /// True once the handler has read all it wants; the parser then stops.
    var stoppedOnPurpose: Bool { get }
    /// `qualifiedName` as libxml2 reports it (lowercased, `epub:switch`); attribute names lowercased.
    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int)
    func endElement(_ qualifiedName: String, line: Int)
    func characters(_ text: String, line: Int)
}
