/// The first well-formedness error a parse reported, with its line.
///
/// Warnings (libxml2's `XML_WAR_*` codes, e.g. 27: an undeclared entity in a document whose DTD
/// was not read) are not errors: libxml2 drops the reference and the text reads on. Neither are
/// namespace errors (codes 200…299, e.g. `epub:type` used without declaring the `epub` prefix,
/// which sloppy books do): XML 1.0 well-formedness does not depend on them and every element
/// still arrives.
struct XMLErrorLog {
    static let warningCodes: Set<Int> = [27, 93, 97, 98, 99, 100, 102, 106, 107]

    private(set) var first: (code: Int, line: Int)?

    mutating func record(code: Int, line: Int) {
        guard first == nil, !Self.warningCodes.contains(code), !(200..<300).contains(code) else { return }
        first = (code, line)
    }
}
