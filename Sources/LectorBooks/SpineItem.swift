/// One `<itemref>` of the OPF spine: a document in reading order.
///
/// `linear="no"` marks auxiliary documents (pop-up notes, answer keys) that a reader shows
/// on demand and a narrator skips.
struct SpineItem: Sendable, Equatable {
    var idref: String
    var isLinear: Bool
}
