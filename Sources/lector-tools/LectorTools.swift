import ArgumentParser
import LectorInterface

/// `lector-tools`: the CLI's commands that run locally what they need: `library` (the state
/// files when no daemon runs), `voices` (espeak-ng and the voice files), `phonemes` (espeak-ng,
/// books, lexicons) and `doctor` (libpulse, espeak-ng, config.toml, the installed files). `lector`
/// execs it for them (its LocalCommand), so it calls itself `lector` in help and messages.
/// Installed in PREFIX/libexec/lector; not meant to be run by hand.
///
///     lector-tools doctor --config new.toml   # what `lector doctor --config new.toml` runs
@main
struct LectorTools: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lector",
        abstract: "Lector's local commands (lector runs this program for them).",
        version: "lector \(BusNames.version)",
        subcommands: [LibraryCommand.self, Voices.self, Phonemes.self, Doctor.self])
}
