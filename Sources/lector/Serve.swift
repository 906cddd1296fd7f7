import ArgumentParser
import LectorDaemon

/// `lector serve`: what systemd or D-Bus activation starts.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Lector daemon on the session bus (io.github.lector.Lector1).")

    func run() throws {
        do {
            let service = try LectorService()
            try service.run()
        } catch {
            Journal.log(.error, "cannot serve: \(error)")
            throw ExitCode(1)
        }
    }
}
