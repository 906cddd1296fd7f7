import ArgumentParser
import LectorDaemon

/// `lector serve`: what systemd or D-Bus activation starts.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Lector daemon on the session bus (io.github.lector.Lector1).")

    func run() throws {
        // The daemon's loop is the main thread (its state is @MainActor); commands run there.
        let status: Int32 = MainActor.assumeIsolated {
            do {
                let service = try LectorService()
                return try service.run()
            } catch {
                Journal.log(.error, "cannot serve: \(error)")
                return 1
            }
        }
        // Not asked to stop (the bus went away, the loop failed): a failure, so systemd restarts us.
        if status != 0 { throw ExitCode(status) }
    }
}
