import Foundation

/// The few most recently parsed documents, so loading chapter after chapter of a book that keeps
/// many chapters in one XHTML file parses that file once, not once per chapter.
///
/// A document parsed only up to an anchor is kept too, and serves any request it can answer;
/// a whole parse of the same document replaces it.
///
///     let text = try cache.document(at: "EPUB/s04.xhtml", satisfying: { $0.isComplete }) { try extract() }
final class DocumentCache: @unchecked Sendable {
    private let capacity: Int
    private var documents: [(path: String, text: DocumentText)] = []
    private let lock = NSLock()

    init(capacity: Int = 4) {
        self.capacity = capacity
    }

    func document(at path: String, satisfying isEnough: (DocumentText) -> Bool,
                  orMake make: () throws(BookError) -> DocumentText) throws(BookError) -> DocumentText {
        lock.lock()
        if let index = documents.firstIndex(where: { $0.path == path }), isEnough(documents[index].text) {
            let hit = documents.remove(at: index)
            documents.append(hit)
            lock.unlock()
            return hit.text
        }
        lock.unlock()
        let made = try make()
        lock.lock()
        defer { lock.unlock() }
        if let index = documents.firstIndex(where: { $0.path == path }) {
            let cached = documents[index].text
            guard !cached.isComplete, made.isComplete || made.count > cached.count else { return made }
            documents.remove(at: index)
        }
        documents.append((path, made))
        if documents.count > capacity { documents.removeFirst() }
        return made
    }
}
