import ArgumentParser
import LectorCommandLine
import LectorSpawn

/// `lector serve`: the daemon. It is a program of its own, `lectord` (installed beside this one
/// in a build tree, else in PREFIX/libexec/lector: `OwnExecutable.sibling`), which this execs:
/// the same process goes on as the daemon, so whatever started `lector serve` (a unit, the bus,
/// a script, a test) watches and signals the daemon itself. The CLI links none of the daemon.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Lector daemon on the session bus (io.github.lector.Lector1).",
        discussion: "Runs lectord, the daemon's own program (installed in /usr/libexec/lector by the package).")

    func run() throws {
        let failure = OwnExecutable.replace(with: "lectord", arguments: [])
        throw CLIError("cannot serve: \(failure)")
    }
}
