/// Receives what `TagSoupParser` finds, in document order, like an `XMLParserDelegate`: every
/// start has a matching end (the parser closes what the document leaves open), and text arrives
/// with its character references already decoded.
protocol TagSoupHandler: AnyObject {
    /// True once the handler has read all it wants; the parser then stops.
    var stoppedOnPurpose: Bool { get }
    /// `qualifiedName` as written (`epub:switch`, `P`); attribute names lowercased.
    func startElement(_ qualifiedName: String, attributes: [String: String], line: Int)
    func endElement(_ qualifiedName: String, line: Int)
    func characters(_ text: String, line: Int)
}
