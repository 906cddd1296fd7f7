/// What kind of file a book was read from.
///
/// The daemon reports it in its book metadata; `epub2` versus `epub3` also explains which table
/// of contents was used (NCX versus the navigation document).
public enum BookFormat: String, Sendable, Equatable, CaseIterable {
    case epub2
    case epub3
    case plainText
}
