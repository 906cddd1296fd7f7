import Foundation

/// The few most recently parsed documents, so loading chapter after chapter of a book that keeps
/// many chapters in one XHTML file parses that file once, not once per chapter. Small documents
/// (title pages, part pages: under `smallScalars` of text) do not count against `capacity`, up to
/// `maximumSmall` of them (a quarter of a megabyte at most): opening looks at each of them twice
/// (empty? only a title?).
///
/// A request may ask for a document only as far as an anchor. The first two such requests for a
/// document parse just that far (opening the book needs the text before chapter 1's anchor,
/// playing needs chapter 1's text up to chapter 2's anchor); after that the whole document is
/// parsed once and serves every later chapter, so reading a single-file book straight through
/// costs one parse, not one per chapter.
///
///     let text = try cache.document(at: "EPUB/book.xhtml", through: "c2") { stopAt in
///         try extract(stoppingAt: stopAt)   // stopAt is "c2" or, from the third request on, nil
///     }
final class DocumentCache: @unchecked Sendable {
    private let capacity: Int
    private var documents: [(path: String, text: DocumentText)] = []
    private var partialParses: [String: Int] = [:]
    static let partialParsesPerDocument = 2
    /// Title and part pages: a few hundred scalars. A book's chapters are larger and are not
    /// kept beyond `capacity` (the daemon reads them all in the background).
    static let smallScalars = 4 << 10
    static let maximumSmall = 64
    private let lock = NSLock()

    init(capacity: Int = 4) {
        self.capacity = capacity
    }

    /// Drops the oldest large document while more than `capacity` are kept, and the oldest of all
    /// while more than `capacity + maximumSmall` are.
    private func evict() {
        while documents.filter({ $0.text.count >= Self.smallScalars }).count > capacity,
              let oldest = documents.firstIndex(where: { $0.text.count >= Self.smallScalars }) {
            documents.remove(at: oldest)
        }
        while documents.count > capacity + Self.maximumSmall { documents.removeFirst() }
    }

    /// The whole document, if it is kept; its place in the cache stays as it is.
    func whole(at path: String) -> DocumentText? {
        lock.lock()
        defer { lock.unlock() }
        return documents.first { $0.path == path && $0.text.isComplete }?.text
    }

    func document(at path: String, through anchor: String?,
                  make: (_ stopAt: String?) throws(BookError) -> DocumentText) throws(BookError) -> DocumentText {
        lock.lock()
        if let index = documents.firstIndex(where: { $0.path == path }),
           documents[index].text.isComplete || anchor.map(documents[index].text.anchors.keys.contains) == true {
            let hit = documents.remove(at: index)
            documents.append(hit)
            lock.unlock()
            return hit.text
        }
        var stopAt: String?
        if let anchor, partialParses[path, default: 0] < Self.partialParsesPerDocument {
            partialParses[path, default: 0] += 1
            stopAt = anchor
        }
        lock.unlock()
        let made = try make(stopAt)
        lock.lock()
        defer { lock.unlock() }
        if let index = documents.firstIndex(where: { $0.path == path }) {
            let cached = documents[index].text
            guard !cached.isComplete, made.isComplete || made.count > cached.count else { return made }
            documents.remove(at: index)
        }
        documents.append((path, made))
        evict()
        return made
    }
}
