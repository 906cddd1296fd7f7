import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorInterface
import LectorSpawn

/// `lector view`: the read-along page, in the default browser.
///
/// The page is served by a small server of its own (not the daemon), on 127.0.0.1 with a secret
/// token in its address; one runs per session and exits some minutes after its last page closed.
/// That server is a program of its own, `lector-view` (found like `lectord`:
/// `OwnExecutable.sibling`), so the CLI links none of Hummingbird or NIO: `lector view` starts it
/// (or execs it, with --no-browser or --serve). MPRIS `Raise` and the desktop entry run this too.
///
///     lector view                 # opens the page (starts the server if none runs)
///     lector view --no-browser    # prints the page's address and serves until idle (scripts, tests)
struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Open the read-along page: the book, the word being heard marked.",
        discussion: """
            Examples:
              lector view
              lector view --no-browser      # print the address and keep serving
            """)

    @Flag(help: "Print the page's address instead of opening a browser, and serve in the foreground.")
    var noBrowser = false

    @Option(help: ArgumentHelp("Exit this many seconds after the last page closed.", valueName: "seconds"))
    var idleExit: Double = 300

    /// Serve in the foreground, printing nothing (the address holds the page's token): becomes
    /// `lector-view`, which D-Bus activation (io.github.lector.View1.service) and the unit run
    /// directly. Kept for activation files and units written for the single `lector` program.
    @Flag(help: .hidden)
    var serve = false

    /// With --serve: print the address once, then nothing (`lector-view --report-url`).
    @Flag(help: .hidden)
    var reportUrl = false

    func validate() throws {
        guard idleExit.isFinite, idleExit > 0 else { throw ValidationError("--idle-exit must be a positive number of seconds") }
    }

    func run() throws {
        // Started as the server (by an old activation file, or by hand): never ask the bus for
        // the server first, since that would wait on this very activation.
        if serve {
            throw Self.becomeServer(reportUrl ? ["--report-url"] : [], idleExit: idleExit)
        }
        if let url = Bus.readAlongServerURL() {
            if noBrowser { print(url) } else { try Self.open(url) }
            return
        }
        if noBrowser {
            throw Self.becomeServer(["--print-url"], idleExit: idleExit)
        } else {
            try Self.open(try startServer())
        }
    }

    /// Goes on as `lector-view` in this process (exec), serving in the foreground; returns only
    /// the error if it cannot.
    private static func becomeServer(_ arguments: [String], idleExit: Double) -> CLIError {
        let failure = OwnExecutable.replace(with: "lector-view", arguments: arguments + ["--idle-exit", String(idleExit)])
        return CLIError("cannot start the read-along server: \(failure)")
    }

    /// Starts `lector-view` as a server of its own (its own session, no terminal) and returns the
    /// address it prints.
    private func startServer() throws -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw CLIError("cannot start the read-along server: \(String(cString: strerror(errno)))") }
        let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let found = OwnExecutable.sibling(named: "lector-view")
        guard let executable = found.path else {
            close(pipe[0])
            close(pipe[1])
            throw CLIError("cannot start the read-along server: \(found)")
        }
        let arguments = ["--report-url", "--idle-exit", String(idleExit)]
        let spawned = Result { () throws(Spawn.Failure) in
            try Spawn.start(executable, arguments: arguments, environment: ProcessInfo.processInfo.environment,
                            stdio: [null, pipe[1], null], detach: .session)
        }
        close(pipe[1])
        defer { close(pipe[0]) }
        if case .failure(let failure) = spawned {
            throw CLIError("cannot start the read-along server: \(String(cString: strerror(failure.code)))")
        }
        // The first line is the address; the server exits only if it cannot start.
        var line = [UInt8]()
        var byte: UInt8 = 0
        while read(pipe[0], &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard !line.isEmpty else {
            throw CLIError("the read-along server did not start (run `lector view --no-browser` to see why)")
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Opens `url` with the desktop's browser, or says where to go.
    static func open(_ url: String) throws {
        if PageOpener.open(url) {
            print("Opened the read-along page in your browser.")
        } else {
            print("Open this address in your browser: \(url)")
        }
    }
}
