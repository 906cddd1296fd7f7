import FoundationEssentials
import Glibc
import LectorSpawn

/// Starts the daemon (`lectord`, the program `lector serve` runs, found by
/// `OwnExecutable.sibling`) for a CLI command when no activation file does it: detached, so it
/// never talks into the terminal that happened to start it and a Ctrl-C or a closed terminal
/// there does not end it. Its own session (setsid: no controlling terminal, not in the shell's
/// process group), standard input and output on /dev/null, the default signal dispositions
/// and mask, and no file descriptor of the CLI but those three (`Spawn`). Its log goes to the
/// journal where journald runs (standard error then goes to /dev/null), else to
/// `$XDG_STATE_HOME/lector/lector.log`.
///
/// ```swift
/// let daemon = try DaemonLauncher.launch()   // pid, and the log file if there is one
/// ```
enum DaemonLauncher {
    struct Launched {
        let pid: pid_t
        /// Where its standard error goes, when it is a file.
        let log: String?

        /// Its exit status if it has ended (it is our child until this command exits).
        func exitStatus() -> Int32? {
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }

    /// Beyond this the log file starts over (it only ever holds what detached daemons said).
    static let logLimit = 1 << 20

    static func launch(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Launched {
        let found = OwnExecutable.sibling(named: "lectord")
        guard let executable = found.path else { throw CLIError("cannot start the daemon: \(found)") }
        let log = logsToJournal(environment) ? nil : logFile(environment)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw CLIError("cannot open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(null) }
        var errorOutput = null
        if let log {
            let fd = openLog(log)
            if fd >= 0 { errorOutput = fd }
        }
        defer { if errorOutput != null { close(errorOutput) } }

        do {
            let pid = try Spawn.start(executable, arguments: [], environment: environment,
                                      stdio: [null, null, errorOutput], detach: .session)
            return Launched(pid: pid, log: log)
        } catch {
            throw CLIError("cannot start \(executable): \(String(cString: strerror(error.code)))")
        }
    }

    /// Opens the log file to write (its directory made if need be): appended to, or started over
    /// once past `logLimit`. A descriptor, or -1.
    static func openLog(_ log: String) -> Int32 {
        try? FileManager.default.createDirectory(atPath: URL(fileURLWithPath: log).deletingLastPathComponent().path,
                                                 withIntermediateDirectories: true)
        // stat, not FileManager's attributes: without Foundation linked their size is no `Int`.
        var status = stat()
        let size = stat(log, &status) == 0 ? Int(status.st_size) : 0
        return open(log, O_WRONLY | O_CREAT | O_CLOEXEC | (size > logLimit ? O_TRUNC : O_APPEND), 0o600)
    }

    /// What the daemon's `Journal` decides: the journal unless LECTOR_LOG=stderr or no journald.
    static func logsToJournal(_ environment: [String: String]) -> Bool {
        environment["LECTOR_LOG"] != "stderr" && FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")
    }

    /// `$XDG_STATE_HOME/lector/lector.log` (or ~/.local/state/lector/lector.log).
    static func logFile(_ environment: [String: String]) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state")
        return base + "/lector/lector.log"
    }
}
