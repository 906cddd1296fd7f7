import Foundation

/// The warnings an EPUB's content documents raised as they were parsed (see
/// `DocumentText.warning`), each once, in the order they were met; shared by every copy of an
/// `EPUBChapterSource`, so opening a book can report what it forgave.
///
///     log.record("OEBPS/metadata.xhtml is not well-formed XML at line 17 (…); read leniently as HTML")
///     log.all   // that line, however often the document is parsed again
final class WarningLog: @unchecked Sendable {
    private var warnings: [String] = []
    /// The same, to check in O(1): a book may have thousands of sloppy documents.
    private var seen: Set<String> = []
    private let lock = NSLock()

    func record(_ warning: String?) {
        guard let warning else { return }
        lock.lock()
        defer { lock.unlock() }
        if seen.insert(warning).inserted { warnings.append(warning) }
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return warnings
    }
}
