import LectorInterface
import ArgumentParser

/// `lector`: the command-line client of the narration daemon (`lector serve` runs the daemon,
/// lectord; `library`, `voices`, `phonemes` and `doctor` run lector-tools: LocalCommand).
///
/// Every command names itself (`commandName:`): without it ArgumentParser derives the name with
/// `String(describing: Self.self)`, a dynamic cast that scans every protocol conformance of this
/// static binary (Foundation's included) once per command type: about 1 ms of every start.
@main
struct Lector: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector",
        abstract: "Reads books and messages aloud (espeak-ng, PulseAudio/PipeWire).",
        // Prose lines end in \ (one paragraph): the help wraps each line at the terminal's width.
        discussion: """
            Examples:
              lector serve                  run the daemon on the session bus
              lector say Payment received   speak through the running daemon
              echo "Build done" | lector say -w -
              lector read book.epub         read a book aloud (media keys control it)

            Exit status: 0 success, 1 a failure (the message says what), 64 a \
            command line that is wrong in itself (an unknown option, --rate fast \
            or --rate 3), 128+N after signal N (Ctrl-C during say --wait cancels \
            the speech and exits 130).
            """,
        version: "lector \(BusNames.version)",
        subcommands: [Serve.self, Say.self, Cancel.self, Queue.self, Notifications.self, Read.self, Status.self,
                      LibraryCommand.self, Chapters.self, Rate.self, Sleep.self, Skip.self, Voices.self, Phonemes.self, Doctor.self, View.self])

    /// `lector say WORDS…` with no option goes to `Say` without ArgumentParser's parse, which
    /// reflects the commands and parses the line twice more for a completion-script request:
    /// a third of the CLI's CPU, most of what `lector say` cost beyond `busctl call`
    /// (docs/benchmarks.md, "lector say"). Everything else, any word starting with "-"
    /// included (`say -w -`, `say -- -5 degrees`), is parsed as always.
    ///
    ///     lector say Build done       # bare: straight to Say.speakBare(["Build", "done"])
    ///     lector say -w Build done    # parsed
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.count >= 2, arguments.first == "say", !arguments.dropFirst().contains(where: { $0.hasPrefix("-") }) {
            do {
                try Say.speakBare(Array(arguments.dropFirst()))
            } catch {
                Self.exit(withError: error)
            }
            Self.exit()
        }
        // `lector help doctor` is `lector doctor --help`, which lector-tools answers (LocalCommand).
        if arguments.first == "help", let name = arguments.dropFirst().first,
           let command = configuration.subcommands.lazy.compactMap({ $0 as? any LocalCommand.Type }).first(where: { $0._commandName == name }) {
            do { try command.exec(Array(arguments.dropFirst()) + ["--help"]) } catch { Self.exit(withError: error) }
        }
        main(nil)
    }
}
