/// Finds what a table of contents means when its links name files that are not where it says:
/// generators write hrefs relative to the package document instead of the navigation document,
/// or drop the folder the files live in (a manual's nav pointing at `chapter.html` while the
/// file is `OEBPS/Text/chapter.html`). An entry whose target the archive lacks is looked for:
///
/// 1. relative to the package document;
/// 2. by file name among the documents read, case aside, when exactly one has it;
/// 3. by file name without its extension (`chapter.html` for `chapter.xhtml`), when exactly one has it.
///
/// Targets that exist but are not read (`linear="no"`, the navigation document) are left alone;
/// entries still pointing at nothing are left out. Each kind of repair is said once, for the log:
///
///     let (entries, warnings) = TOCLinkRepair.repaired(entries, readingOrder: order,
///                                                      packagePath: "OEBPS/content.opf", exists: archive.contains)
///     // warnings: ["table of contents: 12 links name files that are not there (e.g. \"chapter1.html\");
///     //             found by file name (e.g. OEBPS/Text/chapter1.html)"]
enum TOCLinkRepair {
    static func repaired(_ entries: [TOCEntry], readingOrder: [String], packagePath: String,
                         exists: (String) -> Bool) -> (entries: [TOCEntry], warnings: [String]) {
        let read = Set(readingOrder)
        // Most books need nothing: no file-name index then.
        guard entries.contains(where: { !read.contains($0.path) && !exists($0.path) }) else { return (entries, []) }
        var byName: [String: [String]] = [:]
        var byStem: [String: [String]] = [:]
        for path in readingOrder {
            let name = fileName(path).lowercased()
            byName[name, default: []].append(path)
            byStem[stem(name), default: []].append(path)
        }
        var result: [TOCEntry] = []
        var repaired: [(href: String, path: String, how: String)] = []
        var unresolved: [String] = []
        for var entry in entries {
            guard !read.contains(entry.path), !exists(entry.path) else {
                result.append(entry)
                continue
            }
            var found: (path: String, how: String)?
            if case .inside(let path, _) = ArchivePath.resolve(entry.href, from: packagePath), read.contains(path) {
                found = (path, "relative to the package document")
            } else if let matches = byName[fileName(entry.path).lowercased()], matches.count == 1 {
                found = (matches[0], "by file name")
            } else if let matches = byStem[stem(fileName(entry.path).lowercased())], matches.count == 1 {
                found = (matches[0], "by file name without its extension")
            }
            guard let found else {
                unresolved.append(entry.href.isEmpty ? entry.path : entry.href)
                continue
            }
            entry.path = found.path
            repaired.append((entry.href, found.path, found.how))
            result.append(entry)
        }
        var warnings: [String] = []
        let kinds = repaired.reduce(into: [String]()) { if !$0.contains($1.how) { $0.append($1.how) } }
        for how in kinds {
            let these = repaired.filter { $0.how == how }
            let first = these[0]
            warnings.append("table of contents: \(these.count) link\(these.count == 1 ? "" : "s") name\(these.count == 1 ? "s" : "") "
                + "a file that is not there (e.g. \"\(first.href)\"); found \(how) (e.g. \(first.path))")
        }
        if let first = unresolved.first {
            warnings.append("table of contents: \(unresolved.count) entr\(unresolved.count == 1 ? "y points" : "ies point") "
                + "at nothing in the book (e.g. \"\(first)\"); left out")
        }
        return (result, warnings)
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `chapter.xhtml` → `chapter`.
    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}
