import Foundation
import LectorTestKit

/// The real EPUBs in `shared/fixtures`, which sits beside the repository (here and in CI).
enum BookFixtures {
    static var wasteland: URL { SharedFixtures.wasteland }
    static var childrensLiterature: URL { SharedFixtures.childrensLiterature }

    /// The fixture, or a failure that says where it was looked for.
    static func require(_ url: URL) throws -> URL {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError("fixture \(url.path) is missing: shared/fixtures must sit beside the repository")
        }
        return url
    }

    /// Titles of wasteland.epub's seven chapters (the title page, the five parts, the notes).
    static let wastelandTitles = [
        "The Waste Land", "I. THE BURIAL OF THE DEAD", "II. A GAME OF CHESS", "III. THE FIRE SERMON",
        "IV. DEATH BY WATER", "V. WHAT THE THUNDER SAID", "NOTES ON \"THE WASTE LAND\"",
    ]
}

/// Plain-text books written into the session directory: `Chapter N` headings, short bodies,
/// so that chapter ends are reached within seconds.
enum TextBooks {
    /// Writes `Chapter 1` … `Chapter n` with the given bodies; returns the file.
    static func write(_ bodies: [String], named name: String, in directory: URL) throws -> URL {
        let folder = directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = bodies.enumerated().map { "Chapter \($0.offset + 1)\n\n\($0.element)\n" }.joined(separator: "\n")
        let file = folder.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Three chapters of two short sentences each: a chapter is heard in 3 to 5 seconds.
    static let threeShortChapters = [
        "The cat sat on the warm mat. It was a quiet morning.",
        "The dog ran across the green park. It was very happy.",
        "The bird sang a song in the tall tree. That is the end.",
    ]

    /// One long sentence without punctuation (no pauses between sentences) of about 35 s,
    /// under the segmenter's 600-scalar limit, in chapter 1; a second chapter after it.
    static let runOnChapters = [
        (["the", "quiet", "river", "runs", "past", "the", "old", "mill", "and", "the", "green", "fields",
          "where", "the", "farmer", "walks", "with", "his", "dog", "every", "morning", "before", "the",
          "sun", "rises", "over", "the", "hills"]
            + ["and", "the", "birds", "wake", "up", "in", "the", "tall", "trees", "along", "the", "bank",
               "while", "the", "water", "carries", "small", "leaves", "down", "towards", "the", "sea"]
            + ["and", "nobody", "in", "the", "village", "knows", "where", "the", "river", "begins", "or",
               "how", "long", "it", "has", "been", "running", "through", "the", "valley", "and", "the",
               "children", "play", "on", "the", "stones", "near", "the", "bridge", "all", "summer", "long"])
            .joined(separator: " ").capitalizedFirst + ".",
        "The second chapter is short. It ends soon.",
    ]
}

private extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
