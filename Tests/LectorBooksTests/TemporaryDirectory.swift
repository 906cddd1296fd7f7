import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()` (call it from
/// `tearDown`), so tests can write books and copies of books without touching the fixtures.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("LectorBooksTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    func file(_ name: String, _ text: String) throws -> URL {
        try file(name, Data(text.utf8))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
