#if canImport(FoundationXML)
import FoundationXML
#else
import Foundation
#endif

/// A parser delegate that keeps an `XMLErrorLog`, so `XMLDocumentParsing` can tell a clean parse
/// from one libxml2 merely recovered from. Each delegate forwards
/// `parser(_:parseErrorOccurred:)` to its log.
protocol XMLErrorRecording: XMLParserDelegate {
    var errorLog: XMLErrorLog { get }
}
