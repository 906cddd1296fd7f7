import ArgumentParser
import LectorCommandLine
import Foundation
import Glibc
import LectorCore
import LectorNeural
import LectorNeuralSpeech

/// `lector voices add FILE.onnx`: installs a Piper voice (the model and its `.onnx.json`) in
/// `$XDG_DATA_HOME/lector/voices`, the first place Lector looks, so that `lector read --voice
/// NAME` finds it. The voice is checked first, as loading it checks before ONNX Runtime (the
/// config's fields, a whole ONNX model with its durations node), so a download cut short or the
/// wrong file is refused here, by name, and not on the first book it should read. The files are
/// written beside their place and renamed into it: a voice is found whole or not at all.
///
///     lector voices add ~/Downloads/en_GB-alba-medium.onnx       # its .onnx.json beside it
///     lector voices add voice.onnx --config voice.json --force    # replaces an installed voice.onnx
struct VoicesAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Install a Piper voice (NAME.onnx and its NAME.onnx.json) for read --voice.",
        discussion: """
            Checks the voice (its config's fields; the model a whole ONNX model with the phoneme \
            durations Lector times words by), then copies both files into \
            ~/.local/share/lector/voices ($XDG_DATA_HOME/lector/voices) and prints the name to \
            read with: en_GB-alba-medium is "alba". A running daemon finds it at its next need. \
            ONNX Runtime is not needed to add a voice, only for it to speak.

            Piper's voices: https://huggingface.co/rhasspy/piper-voices (each NAME.onnx comes \
            with its NAME.onnx.json).

            Examples:
              lector voices add ~/Downloads/en_GB-alba-medium.onnx
              lector voices add voice.onnx --config voice.onnx.json
              lector voices add ~/Downloads/en_GB-alba-medium.onnx --force    replace it
            """)

    @Argument(help: "The voice's model, NAME.onnx; its config is NAME.onnx.json beside it unless --config gives it.")
    var model: String
    @Option(help: "The voice's config (Piper's NAME.onnx.json), if it is not beside the model.")
    var config: String?
    @Flag(help: "Replace a voice of the same file name that is already installed (a daemon reading with it loads the new one at its next sentence).")
    var force = false

    private var configPath: String { config ?? model + ".json" }
    /// The file name without `.onnx`: `en_GB-alba-medium`, the voice's identifier.
    private var identifier: String { String(URL(fileURLWithPath: model).lastPathComponent.dropLast(".onnx".count)) }

    func validate() throws {
        guard model.hasSuffix(".onnx"), !identifier.isEmpty else {
            throw ValidationError("\(model) is not a voice model: give a Piper voice's NAME.onnx "
                                  + "(its config NAME.onnx.json beside it, or --config PATH)")
        }
        try Self.checkIsFile(model, what: "voice model")
        if config == nil, !FileManager.default.fileExists(atPath: configPath) {
            throw ValidationError("\(model) has no config beside it (\(configPath)): Piper voices come as NAME.onnx "
                                  + "and NAME.onnx.json; put it there or give it with --config PATH")
        }
        try Self.checkIsFile(configPath, what: "voice config")
    }

    private static func checkIsFile(_ path: String, what: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("no such \(what): \(path)")
        }
        if isDirectory.boolValue { throw ValidationError("the \(what) \(path) is a directory, not a file") }
    }

    func run() throws {
        // What is checked is what is copied: both files are read once, into memory.
        let configData = try Self.read(configPath) { NeuralError.configUnreadable(path: configPath, reason: $0) }
        let modelData = try Self.read(model) { NeuralError.modelUnreadable(path: model, reason: $0) }
        let piper: PiperConfig
        do {
            piper = try PiperConfig(json: configData, path: configPath)
            try PiperVoice.checkModel(modelData, path: model)
        } catch let error as NeuralError {
            throw CLIError("\(error); " + Self.advice(error) + ". Nothing was installed.")
        }

        let name = NeuralVoiceFinder.shortName(identifier)
        let directory = NeuralVoiceFinder.directories()[0]   // $XDG_DATA_HOME/lector/voices, looked in first
        let installedModel = directory + "/" + identifier + ".onnx"
        let replacing = FileManager.default.fileExists(atPath: installedModel)
        if replacing, !force {
            throw CLIError("\(identifier) is already installed (\(installedModel)); add --force to replace it with this one")
        }
        // Two voices of one name in the same place: only one would be found (the first by file name).
        let sameName = NeuralVoiceFinder.find().voices.first {
            $0.name.lowercased() == name.lowercased() && $0.neural?.modelPath != installedModel
        }
        if let other = sameName?.neural?.modelPath, URL(fileURLWithPath: other).deletingLastPathComponent().path == directory {
            throw CLIError("\(other) is also called \"\(name)\", and only one voice of a name is used: remove it first "
                           + "(and its .onnx.json), or rename this voice's two files to a name of their own "
                           + "(LANG_REGION-NAME-QUALITY.onnx, e.g. \(Self.example(identifier))). Nothing was installed.")
        }

        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Self.install(model: modelData, config: configData, as: installedModel, replacing: replacing)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot create \(directory): \((error as NSError).localizedDescription)")
        }

        let details = [piper.espeakVoice, piper.quality, "\(piper.sampleRate) Hz"].compactMap { $0 }.joined(separator: ", ")
        print("\(replacing ? "Replaced" : "Installed") \(identifier) (piper: \(details)) in \(directory).")
        if replacing { print("A daemon reading with it loads the new files at its next sentence.") }
        if let other = sameName?.neural?.modelPath {
            print("It is used instead of \(other), which has the same name.")
        }
        print("Read a book with it: lector read BOOK --voice \(name)")
    }

    /// A file's bytes, or `failure`'s error (with the system's reason) as a message.
    private static func read(_ path: String, failure: (String) -> NeuralError) throws -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedDescription
            throw CLIError("\(failure(reason)); check that it is a file you can read. Nothing was installed.")
        }
    }

    /// What to change, for each way a voice is refused.
    private static func advice(_ error: NeuralError) -> String {
        switch error {
        case .modelCorrupt:
            "the file is damaged, cut short or not a model: download the voice's .onnx again"
        case .modelWithoutDurations:
            "Lector places each word by the model's phoneme durations (a Piper VITS voice has them): use a Piper voice"
        case .configUnreadable, .configMissingField, .configInvalidField:
            "use the .onnx.json that came with this voice (download it again, or give it with --config PATH)"
        default:
            "check the voice's files"
        }
    }

    /// `en_GB-alba-medium` → `en_GB-alba2-medium`, a name of its own to suggest.
    private static func example(_ identifier: String) -> String {
        let parts = identifier.split(separator: "-").map(String.init)
        guard parts.count >= 3 else { return identifier + "-2" }
        return (parts.dropLast(2) + [parts[parts.count - 2] + "2", parts[parts.count - 1]]).joined(separator: "-")
    }

    /// Writes both files as hidden temp files in the voice directory (names NeuralVoiceFinder
    /// passes over), syncs them, then renames the config and then the model into place: the
    /// model's name appearing is what makes the voice found, and by then its config is there.
    /// Replacing, the old model goes first, so no reader meets the new config with the old model.
    private static func install(model: Data, config: Data, as installedModel: String, replacing: Bool) throws {
        let directory = URL(fileURLWithPath: installedModel).deletingLastPathComponent().path
        let base = URL(fileURLWithPath: installedModel).lastPathComponent
        let configTemp = try writeTemp(config, in: directory, named: base)
        var leftovers = [configTemp]
        defer { leftovers.forEach { unlink($0) } }   // a failure leaves no temp file behind
        let modelTemp = try writeTemp(model, in: directory, named: base)
        leftovers.append(modelTemp)
        func fail(_ what: String) -> CLIError {
            CLIError("cannot install into \(directory): \(what): \(String(cString: strerror(errno)))")
        }
        if replacing, unlink(installedModel) != 0, errno != ENOENT { throw fail("removing the old \(base)") }
        guard rename(configTemp, installedModel + ".json") == 0 else { throw fail("renaming the config into place") }
        leftovers = [modelTemp]
        guard rename(modelTemp, installedModel) == 0 else { throw fail("renaming the model into place") }
        leftovers = []
        let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// `data` in a new `.NAME.XXXXXX` file of `directory` (mode 644), synced; its path.
    private static func writeTemp(_ data: Data, in directory: String, named base: String) throws -> String {
        var template = Array((directory + "/." + base + ".XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else {
            throw CLIError("cannot write into \(directory): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fchmod(fd, 0o644) != 0 || fsync(fd) != 0 { failure = errno }
        close(fd)
        guard failure == 0 else {
            unlink(path)
            throw CLIError("cannot write into \(directory): \(String(cString: strerror(failure))). Nothing was installed.")
        }
        return path
    }
}
