import ArgumentParser
import Foundation
import Glibc
import LectorBus
import LectorInterface
import LectorSpawn
import LectorView

/// `lector view`: the read-along page, in the default browser.
///
/// The page is served by a small server of its own (not the daemon), on 127.0.0.1 with a secret
/// token in its address; one runs per session and exits some minutes after its last page closed.
/// MPRIS `Raise` and the desktop entry run this too.
///
///     lector view                 # opens the page (starts the server if none runs)
///     lector view --no-browser    # prints the page's address and serves until idle (scripts, tests)
struct View: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    /// How D-Bus activation (io.github.lector.View1.service) and `lector view` itself start the
    /// server: serve in the foreground, printing nothing (the address holds the page's token).
    @Flag(help: .hidden)
    var serve = false

    /// With --serve: print the address once, for the `lector view` that started this server.
    @Flag(help: .hidden)
    var reportUrl = false

    func validate() throws {
        guard idleExit.isFinite, idleExit > 0 else { throw ValidationError("--idle-exit must be a positive number of seconds") }
    }

    func run() throws {
        // Started as the server (by D-Bus activation, or by `lector view`): never ask the bus for
        // the server first, since that would wait on this very activation.
        if serve {
            try runServer(printing: reportUrl, detached: reportUrl)
            return
        }
        if let url = Self.runningServerURL() {
            if noBrowser { print(url) } else { try Self.open(url) }
            return
        }
        if noBrowser {
            try runServer(printing: true, detached: false)
        } else {
            try Self.open(try startServer())
        }
    }

    /// Serves here until idle or a signal; prints the address first when `printing`.
    private func runServer(printing: Bool, detached: Bool) throws {
        let (status, lost): (Int32, Bool) = try MainActor.assumeIsolated {
            var options = ViewService.Options()
            options.idleExitSeconds = idleExit
            let service = try ViewService(options: options)
            let status = try service.run { url in
                guard printing else { return }
                // Unbuffered: whoever started us reads this line before anything else happens.
                FileHandle.standardOutput.write(Data((url + "\n").utf8))
                // Started by `lector view`: it has read the address; nothing more goes to its pipe.
                if detached { Self.silenceOutput() }
            }
            return (status, service.lostToAnotherServer)
        }
        if lost, printing, let url = Self.runningServerURL() {
            // Another started at the same moment: use it.
            FileHandle.standardOutput.write(Data((url + "\n").utf8))
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Starts `lector view` as a server of its own (its own session, no terminal) and returns the
    /// address it prints.
    private func startServer() throws -> String {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw CLIError("cannot start the read-along server: \(String(cString: strerror(errno)))") }
        let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let arguments = ["view", "--serve", "--report-url", "--idle-exit", String(idleExit)]
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

    /// The address of the server running in this session, if any; D-Bus activation starts one
    /// where its activation file is installed (the package), under its own unit.
    static func runningServerURL() -> String? {
        guard let bus = try? Bus.session() else { return nil }
        defer { bus.close() }
        guard let reply = try? bus.call(destination: ViewNames.service, path: ViewNames.path,
                                        interface: "org.freedesktop.DBus.Properties", member: "Get", { writer in
                                            try writer.append(ViewNames.interface)
                                            try writer.append("Url")
                                        }) else { return nil }
        return (try? reply.readDisplayVariant()).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Opens `url` with the desktop's browser, or says where to go.
    static func open(_ url: String) throws {
        if PageOpener.open(url) {
            print("Opened the read-along page in your browser.")
        } else {
            print("Open this address in your browser: \(url)")
        }
    }

    /// After the address was read, stdout goes nowhere (the pipe's reader is gone).
    static func silenceOutput() {
        let null = Glibc.open("/dev/null", O_WRONLY)
        if null >= 0 {
            dup2(null, 1)
            close(null)
        }
    }
}
