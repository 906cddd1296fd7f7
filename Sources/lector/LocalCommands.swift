import ArgumentParser
import LectorCommandLine
import Glibc
import LectorSpawn

/// The commands that run locally what they need (books, espeak-ng, config.toml, the state
/// files): `library`, `voices`, `phonemes` and `doctor`. They are a program of their own,
/// `lector-tools` (beside this one in a build tree, else in PREFIX/libexec/lector), which this
/// execs with the command line as it was given, `--help` included. So the CLI links no book
/// reader, TOML parser or Foundation, and starts as small as a D-Bus client can: its say,
/// status and media commands are what it is run for (docs/benchmarks.md, "The CLI without
/// Foundation").
///
///     lector doctor --config new.toml   # exec lector-tools doctor --config new.toml
protocol LocalCommand: ParsableCommand {
    var arguments: [String] { get }
}

extension LocalCommand {
    func run() throws {
        try Self.exec([Self._commandName] + arguments)
    }

    /// Replaces this process with `lector-tools ARGUMENTS`; throws only if it cannot.
    static func exec(_ arguments: [String]) throws -> Never {
        if let path = OwnExecutable.path { setenv(InvokingCLI.variable, path, 1) }
        let failure = OwnExecutable.replace(with: "lector-tools", arguments: arguments)
        throw CLIError("cannot run lector \(arguments.first ?? ""): \(failure)")
    }

    /// Its command line is the tool's to read, `--help` and `-h` too: it has no help flag here.
    static func handedOver(_ name: String, abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract, helpNames: [])
    }
}

struct LibraryCommand: LocalCommand {
    static let configuration = handedOver("library", abstract: "List the books you have read: progress, time left, last listened.")
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct Voices: LocalCommand {
    static let configuration = handedOver("voices", abstract: "List the installed voices and their languages; add a Piper voice.")
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct Phonemes: LocalCommand {
    static let configuration = handedOver("phonemes", abstract: "Show what espeak-ng says for a text or a chapter, lexicons applied.")
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}

struct Doctor: LocalCommand {
    static let configuration = handedOver("doctor", abstract: "Check the bus, sound server, voices, config and installed files.")
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
}
