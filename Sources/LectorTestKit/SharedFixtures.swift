import Foundation

/// The real EPUBs in `shared/fixtures`, which sits beside the repository (here and in CI).
public enum SharedFixtures {
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // …/Sources/LectorTestKit
        .deletingLastPathComponent()   // …/Sources
        .deletingLastPathComponent()   // the repository root
        .deletingLastPathComponent()   // the folder holding the clone and shared/
        .appendingPathComponent("shared/fixtures", isDirectory: true)
        .standardizedFileURL

    public static var wasteland: URL { directory.appendingPathComponent("wasteland.epub") }
    public static var childrensLiterature: URL { directory.appendingPathComponent("childrens-literature.epub") }
}
