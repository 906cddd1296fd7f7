/// The moved notes' text: a `DocumentText` of its own (a reference type only because a
/// `DocumentText` cannot hold a `DocumentText` directly).
final class NotesText: Sendable {
    let document: DocumentText

    init(_ document: DocumentText) {
        self.document = document
    }
}
