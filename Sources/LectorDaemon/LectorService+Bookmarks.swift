import Foundation
import LectorState

/// Bookmarks: taken on the loop (a value), written on `bookmarkQueue` (atomic, fsynced).
extension LectorService {
    func saveBookmark() {
        guard let book = narrator.book else { return }
        let point = narrator.resumePoint
        let bookmark = Bookmark(bookIdentity: book.identity, path: book.url.path, chapter: point.chapter, offset: point.offset)
        let store = bookmarks
        bookmarkQueue.async {
            do {
                try store.save(bookmark)
            } catch {
                Journal.log(.warning, "could not save the bookmark of \(bookmark.path): \(error)",
                            fields: ["LECTOR_BOOK": bookmark.path])
            }
        }
    }
}
