import Foundation
import XCTest

/// The real EPUBs in `shared/fixtures`, which sits beside the repository (here and in CI), found
/// relative to this file like the player tests find them.
enum RealFixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // LectorBooksTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // the repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures", isDirectory: true)
        .standardizedFileURL

    static var wasteland: URL { directory.appendingPathComponent("wasteland.epub") }
    static var childrensLiterature: URL { directory.appendingPathComponent("childrens-literature.epub") }

    /// Fails the test with where the fixture was looked for, rather than with a confusing error.
    static func require(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail("fixture \(url.path) is missing: shared/fixtures must sit beside the repository", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
    }
}
