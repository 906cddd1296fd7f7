import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The first well-formedness error a parse reported, with its line.
///
/// `XMLParser` on Linux lets libxml2 recover from many errors and may still return `true` from
/// `parse()` (a `<b>` closed by `</p>` reports "tag name mismatch" and parsing carries on), so
/// success is judged by the errors delegates saw, not by the return value. Warnings (libxml2's
/// `XML_WAR_*` codes, e.g. 27: an undeclared entity in a document whose DTD was not read) are
/// not errors: libxml2 drops the reference and the text reads on. Neither are namespace errors
/// (codes 200…299, e.g. `epub:type` used without declaring the `epub` prefix, which sloppy books
/// do): XML 1.0 well-formedness does not depend on them and every element still arrives.
///
///     func parser(_ parser: XMLParser, parseErrorOccurred error: Error) {
///         errorLog.record(error, line: parser.lineNumber)
///     }
struct XMLErrorLog {
    static let warningCodes: Set<Int> = [27, 93, 97, 98, 99, 100, 102, 106, 107]

    private(set) var first: (code: Int, line: Int)?

    /// Not libxml2's: elements nested deeper than `HTMLDocumentParser.maximumDepth`.
    static let tooDeepCode = -1

    mutating func recordTooDeep(line: Int) {
        if first == nil { first = (Self.tooDeepCode, line) }
    }

    mutating func record(_ error: Error, line: Int) {
        let code = (error as NSError).code
        guard first == nil, !Self.warningCodes.contains(code), !(200..<300).contains(code) else { return }
        first = (code, line)
    }
}
