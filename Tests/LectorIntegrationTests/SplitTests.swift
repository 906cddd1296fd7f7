import Foundation
import LectorSpawn
import LectorTestKit
import XCTest

/// Programs each linking only what they run (issue 23): the `lector` CLI links none of the
/// daemon (LectorDaemon), none of the read-along server (LectorView, Hummingbird, NIO,
/// ServiceLifecycle) and no Foundation; `lectord` and `lector-view` are the daemon and the server,
/// `lector-tools` the local commands; `lector serve`, `lector view` and `lector doctor` still
/// reach them (the same process, exec'd).
final class SplitTests: XCTestCase {
    private var lector: String { LectorExecutable.path }
    private var lectord: String { BuiltProduct.path(named: "lectord", overrideVariable: "LECTORD_BIN") }
    private var lectorView: String { BuiltProduct.path(named: "lector-view", overrideVariable: "LECTOR_VIEW_BIN") }
    private var lectorTools: String { BuiltProduct.path(named: "lector-tools", overrideVariable: "LECTOR_TOOLS_BIN") }

    /// Swift modules whose code must not be in the CLI, as their names appear in mangled symbols
    /// (`$s12LectorDaemon…`: the name's length, then the name).
    static let daemonModules = ["LectorDaemon"]
    static let viewModules = ["LectorView", "Hummingbird", "HummingbirdCore", "NIOCore", "NIOPosix", "ServiceLifecycle"]
    /// What the local commands need and the CLI leaves to lector-tools: Foundation (which brings
    /// CoreFoundation and ICU's data) and the modules that import it.
    static let localModules = ["Foundation", "LectorBooks", "ZIPFoundation", "LectorConfig", "TOMLKit", "LectorState",
                               "LectorSpeech", "LectorAudio", "LectorNeural"]

    /// The modules of `modules` that define at least one symbol in `binary` (its full symbol
    /// table, `nm --defined-only`). Fails the test if nm cannot read it.
    private func modulesDefined(in binary: String, of modules: [String],
                                file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let result = try runTool("nm", ["--defined-only", binary])
        XCTAssertEqual(result.status, 0, "nm \(binary): \(result.stderr)", file: file, line: line)
        let symbols = result.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last }
        XCTAssertGreaterThan(symbols.count, 1000, "nm listed almost nothing in \(binary): stripped?", file: file, line: line)
        return modules.filter { module in
            let mangled = "\(module.utf8.count)\(module)"
            return symbols.contains { $0.hasPrefix("$s") && $0.contains(mangled) }
        }
    }

    /// A tool from PATH, outside any private session, to completion.
    private func runTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    // MARK: - What each program links

    func testTheCLILinksNeitherTheDaemonNorTheReadAlongServer() throws {
        let linked = try modulesDefined(in: lector, of: Self.daemonModules + Self.viewModules)
        XCTAssertEqual(linked, [], "the lector CLI (\(lector)) has code of \(linked)")
        // The CLI's own commands are there (the check reads real symbols, not an empty table).
        XCTAssertEqual(try modulesDefined(in: lector, of: ["LectorBus", "ArgumentParser"]), ["LectorBus", "ArgumentParser"])
    }

    /// The CLI is a D-Bus client on FoundationEssentials: no Foundation, so no CoreFoundation and
    /// no ICU data (34 of its 88 MB before, all read from disk on a cold start); the local commands'
    /// modules are lector-tools' (where the same check finds them, so it can fail).
    func testTheCLILinksNoFoundationNorICU() throws {
        XCTAssertEqual(try modulesDefined(in: lector, of: Self.localModules), [], "the lector CLI (\(lector))")
        XCTAssertEqual(try modulesDefined(in: lectorTools, of: Self.localModules), Self.localModules, "lector-tools")
        for (program, expected) in [(lector, false), (lectorTools, true)] {
            // Linked statically (release): ICU's data and CoreFoundation's code are in the program.
            let symbols = try runTool("nm", ["--defined-only", program])
            XCTAssertEqual(symbols.status, 0, "nm \(program): \(symbols.stderr)")
            let inside = symbols.stdout.contains(" icudt") || symbols.stdout.contains(" CFStringCreateWithBytes\n")
            // Linked dynamically (debug): the libraries are needed instead.
            let dynamic = try runTool("readelf", ["-d", program])
            let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            let linked = needed.contains { $0.contains("[libFoundation.so]") || $0.contains("[libFoundationInternationalization.so]") }
            XCTAssertEqual(inside || linked, expected, "Foundation in \(program): ICU or CoreFoundation symbols \(inside), needs \(needed)")
        }
    }

    /// `lector library`, `voices`, `phonemes` and `doctor` are lector-tools' (LocalCommand): the
    /// CLI execs it with the line as typed, so their help, errors and exit statuses are its own,
    /// and `lector --help` lists them with the abstracts lector-tools gives them.
    func testTheLocalCommandsAreLectorToolsOwn() throws {
        for arguments in [["doctor", "--help"], ["voices", "add", "--help"], ["phonemes", "-h"]] {
            let handed = try runTool(lector, arguments), own = try runTool(lectorTools, arguments)
            XCTAssertEqual(handed.status, 0, "lector \(arguments): \(handed)")
            XCTAssertEqual(handed.stdout, own.stdout, "lector \(arguments)")
            XCTAssertTrue(handed.stdout.contains("USAGE: lector \(arguments[0])"), "\(handed.stdout)")
        }
        let help = try runTool(lector, ["help", "library"])
        XCTAssertEqual(help.stdout, try runTool(lectorTools, ["library", "--help"]).stdout, "lector help library")
        let refused = try runTool(lector, ["library", "--nonsense"])
        XCTAssertEqual(refused.status, 64, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("--nonsense"), "\(refused)")
        let listed = try runTool(lector, ["--help"]).stdout, tools = try runTool(lectorTools, ["--help"]).stdout
        for name in ["library", "voices", "phonemes", "doctor"] {
            func abstract(_ help: String) -> String? {
                // "  doctor                  Check the bus, …" and its wrapped lines, up to the next command.
                guard let start = help.range(of: "\n  \(name) ") else { return nil }
                let rest = help[start.upperBound...]
                let end = rest.range(of: #"\n(\n|  [a-z])"#, options: .regularExpression)?.lowerBound ?? rest.endIndex
                return rest[..<end].split(whereSeparator: \.isWhitespace).joined(separator: " ")
            }
            XCTAssertNotNil(abstract(listed), "lector --help lists \(name)")
            XCTAssertEqual(abstract(listed), abstract(tools), "\(name)'s abstract in lector --help and lector-tools --help")
        }
    }

    /// The same check finds what lectord and lector-view are made of, so it can fail.
    func testTheDaemonAndTheServerHoldWhatTheCLILeavesOut() throws {
        XCTAssertEqual(try modulesDefined(in: lectord, of: Self.daemonModules + Self.viewModules), Self.daemonModules,
                       "lectord: the daemon, and none of the read-along server")
        XCTAssertEqual(try modulesDefined(in: lectorView, of: Self.daemonModules + Self.viewModules), Self.viewModules,
                       "lector-view: the read-along server, and none of the daemon")
    }

    /// libpulse, espeak-ng and libxml2 are opened with dlopen where they are used (CPulse,
    /// CEspeakNG, CLibXML2), so no program lists them as needed; libsystemd, which they all
    /// link, shows the check can fail.
    func testNoProgramLinksLibpulseEspeakNGOrLibxml2() throws {
        for program in [lector, lectord, lectorView, lectorTools] {
            let dynamic = try runTool("readelf", ["-d", program])
            XCTAssertEqual(dynamic.status, 0, "readelf -d \(program): \(dynamic.stderr)")
            let needed = dynamic.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            XCTAssertTrue(needed.contains { $0.contains("libsystemd.so") }, "\(program) needs: \(needed)")
            XCTAssertFalse(needed.contains { $0.contains("libpulse") || $0.contains("libespeak") || $0.contains("libxml2") },
                           "\(program) needs: \(needed)")
        }
    }

    /// A broken libpulse.so.0 and libespeak-ng.so.1 (empty files found first through
    /// LD_LIBRARY_PATH): commands that need neither still run, the ones that do fail with the
    /// package to install, and the daemon refuses to serve with the same message, never an abort.
    func testABrokenLibpulseOrEspeakNGIsAMessageNotACrash() throws {
        let libraries = FileManager.default.temporaryDirectory.appendingPathComponent("lector-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: libraries) }
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        for name in ["libpulse.so.0", "libespeak-ng.so.1"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: libraries.appendingPathComponent(name).path, contents: Data()))
        }
        let broken = ["LD_LIBRARY_PATH": libraries.path]
        let session = try TestSession()
        defer { session.shutdown() }

        let version = try session.run(lector, ["--version"], extraEnvironment: broken)
        XCTAssertEqual(version.status, 0, "\(version)")
        let status = try session.run(lector, ["status"], extraEnvironment: broken)
        XCTAssertEqual(status.status, 0, "no daemon: status says so: \(status)")

        let phonemes = try session.run(lector, ["phonemes", "hello"], extraEnvironment: broken)
        XCTAssertEqual(phonemes.status, 1, "\(phonemes)")
        XCTAssertTrue(phonemes.stderr.contains("libespeak-ng.so.1: file too short). Fix: apt install libespeak-ng1"), "\(phonemes)")
        let healthy = try session.run(lector, ["phonemes", "hello"])
        XCTAssertEqual(healthy.status, 0, "the same command with the real libraries: \(healthy)")

        let doctor = try session.run(lector, ["doctor", "--sound-server-timeout", "500"], extraEnvironment: broken)
        XCTAssertEqual(doctor.status, 1, "\(doctor)")
        let lines = doctor.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL") && $0.contains("sound server: libpulse cannot be loaded")
            && $0.hasSuffix("Fix: apt install libpulse0") }, "\(doctor)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("FAIL") && $0.contains("voices:") && $0.contains("Fix: apt install libespeak-ng1") },
                      "\(doctor)")

        let daemon = try session.run(lectord, [], timeout: 20, extraEnvironment: broken)
        XCTAssertFalse(daemon.timedOut, "\(daemon)")
        XCTAssertEqual(daemon.status, 1, "\(daemon)")
        XCTAssertTrue(daemon.stderr.contains("Fix: apt install libespeak-ng1"), "\(daemon)")
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))
    }

    /// A broken libxml2.so.2 (an empty file found first through LD_LIBRARY_PATH): the CLI and the
    /// daemon start and speak plain text; an EPUB and an SSML text are refused with the package
    /// to install, and the daemon goes on.
    func testABrokenLibxml2IsAMessageNotACrash() throws {
        let libraries = FileManager.default.temporaryDirectory.appendingPathComponent("lector-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: libraries) }
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: libraries.appendingPathComponent("libxml2.so.2").path, contents: Data()))
        let broken = ["LD_LIBRARY_PATH": libraries.path]
        let session = try TestSession()
        defer { session.shutdown() }
        let book = session.directory.appendingPathComponent("book.epub")
        try EPUBWriter.chapters(2, identifier: "urn:uuid:broken-libxml2") { "<p>Chapter \($0) is short.</p>" }.write(to: book)

        let version = try session.run(lector, ["--version"], extraEnvironment: broken)
        XCTAssertEqual(version.status, 0, "\(version)")
        let daemon = try session.spawn(lectord, [], extraEnvironment: broken.merging(["LECTOR_LOG": "stderr"]) { $1 })
        try session.waitForBusName(LectorFixture.service, timeout: 15)
        let said = try session.run(lector, ["say", "-w", "Plain text needs no XML."], extraEnvironment: broken)
        XCTAssertEqual(said.status, 0, "\(said)")
        let ssml = try session.run(lector, ["say", "--ssml", "<speak>Hello</speak>"], extraEnvironment: broken)
        XCTAssertEqual(ssml.status, 1, "\(ssml)")
        XCTAssertTrue(ssml.stderr.contains("libxml2.so.2: file too short). Fix: apt install libxml2"), "\(ssml)")
        let read = try session.run(lector, ["read", book.path], extraEnvironment: broken)
        XCTAssertEqual(read.status, 1, "\(read)")
        XCTAssertTrue(read.stderr.contains("libxml2 cannot be loaded") && read.stderr.contains("Fix: apt install libxml2"), "\(read)")
        let again = try session.run(lector, ["say", "-w", "Still here."], extraEnvironment: broken)
        XCTAssertEqual(again.status, 0, "the daemon goes on: \(again)")
        XCTAssertNil(daemon.exitStatus, daemon.output)
    }

    // MARK: - lector serve, lector view

    /// `lector serve` becomes lectord in the same process: what started it watches the daemon.
    func testLectorServeExecsLectord() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let daemon = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName(LectorFixture.service, timeout: 15)
        XCTAssertEqual(try busOwnerPID(session, LectorFixture.service), daemon.pid, "the bus name's owner is not the process started")
        XCTAssertEqual(executable(of: daemon.pid), canonical(lectord), daemon.output)
        daemon.terminate()
        XCTAssertEqual(daemon.exitStatus, 0, "SIGTERM to the pid `lector serve` started ends the daemon cleanly\n\(daemon.output)")
    }

    /// `lector view --no-browser` becomes lector-view in the same process and prints the page's
    /// address; `lector view --serve` (old activation files) does too and takes the server's name.
    func testLectorViewExecsLectorView() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let server = try session.spawn(lector, ["view", "--no-browser", "--idle-exit", "60"])
        var address: String?
        let deadline = Date(timeIntervalSinceNow: 15)
        while address == nil, server.isRunning, Date() < deadline {
            address = server.standardOutput.split(separator: "\n").first.map(String.init)
            usleep(20_000)
        }
        XCTAssertTrue(address?.hasPrefix("http://127.0.0.1:") == true, "no address: \(server.output)")
        XCTAssertEqual(executable(of: server.pid), canonical(lectorView), server.output)
        try session.waitForBusName("io.github.lector.View1", timeout: 10)
        XCTAssertEqual(try busOwnerPID(session, "io.github.lector.View1"), server.pid)
        // With a server running, `lector view --no-browser` only prints its address.
        let again = try session.run(lector, ["view", "--no-browser"], timeout: 15)
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines), address)
        server.terminate()
        XCTAssertEqual(server.exitStatus, 0, server.output)

        let served = try session.spawn(lector, ["view", "--serve", "--idle-exit", "60"])
        try session.waitForBusName("io.github.lector.View1", timeout: 10)
        XCTAssertEqual(executable(of: served.pid), canonical(lectorView), served.output)
        XCTAssertEqual(try busOwnerPID(session, "io.github.lector.View1"), served.pid)
    }

    /// Without an activation file, the CLI starts lectord itself, detached.
    func testTheCLIStartsLectordWithoutAnActivationFile() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let say = try session.run(lector, ["say", "Started by the client."], timeout: 30)
        XCTAssertEqual(say.status, 0, "\(say)\n\(session.diagnostics)")
        let pid = try XCTUnwrap(busOwnerPID(session, LectorFixture.service))
        XCTAssertEqual(executable(of: pid), canonical(lectord))
        let cmdline = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        XCTAssertEqual(cmdline, canonical(lectord) + "\0", "started as plain lectord")
    }

    func testTheProgramsAnswerVersionAndRefuseStrayArguments() throws {
        for program in [lector, lectord, lectorView, lectorTools] {
            let version = try runTool(program, ["--version"])
            XCTAssertEqual(version.status, 0, "\(program): \(version)")
            // lector-tools answers for `lector doctor --version` and the like: it says lector.
            let name = program == lectorTools ? "lector" : (program as NSString).lastPathComponent
            XCTAssertTrue(version.stdout.hasPrefix(name + " "), "\(program): \(version)")
        }
        for (program, arguments) in [(lectord, ["--nonsense"]), (lectorView, ["serve"]), (lectorView, ["--idle-exit", "0"])] {
            let refused = try runTool(program, arguments)
            XCTAssertEqual(refused.status, 64, "\(program) \(arguments): \(refused)")
            XCTAssertTrue(refused.stderr.contains("usage:"), "\(program) \(arguments): \(refused)")
        }
    }

    /// A `lector` copied alone (with its lector-tools) into a directory finds no lectord beside it nor in its
    /// installation: `lector serve` fails naming where it looked, and doctor says so. (Where the
    /// package is installed on this machine, it finds the package's lectord instead, by the rule.)
    func testALectorAloneSaysWhereItLooked() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lector-alone-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("bin"), withIntermediateDirectories: true)
        let alone = root.appendingPathComponent("bin/lector").path
        try FileManager.default.copyItem(atPath: lector, toPath: alone)
        let session = try TestSession(sinks: [], startSoundServer: false)
        defer { session.shutdown() }
        // Truly alone, its local commands say where lector-tools was looked for (unless installed).
        if !FileManager.default.isExecutableFile(atPath: "/usr/libexec/lector/lector-tools") {
            let voices = try session.run(alone, ["voices"], timeout: 10)
            XCTAssertEqual(voices.status, 1, "\(voices)")
            XCTAssertTrue(voices.stderr.contains("cannot find Lector's lector-tools program: looked in \(root.path)/bin/lector-tools"), "\(voices)")
        }
        // doctor is lector-tools' (found beside, as lectord would be).
        try FileManager.default.copyItem(atPath: lectorTools, toPath: root.appendingPathComponent("bin/lector-tools").path)
        let packaged = "/usr/libexec/lector/lectord"
        let doctor = try session.run(alone, ["doctor", "--sound-server-timeout", "200"], timeout: 30)
        let programs = doctor.stdout.split(separator: "\n").first { $0.contains(" programs: ") }.map(String.init) ?? ""
        if FileManager.default.isExecutableFile(atPath: packaged) {
            XCTAssertTrue(programs.hasPrefix("ok") && programs.contains(packaged), "\(doctor)")
            return
        }
        XCTAssertTrue(programs.hasPrefix("FAIL"), "\(doctor)")
        for place in ["\(root.path)/bin/lectord", "\(root.path)/libexec/lector/lectord", packaged] {
            XCTAssertTrue(programs.contains(place), "doctor names \(place): \(programs)")
        }
        let serve = try session.run(alone, ["serve"], timeout: 10)
        XCTAssertEqual(serve.status, 1, "\(serve)")
        XCTAssertTrue(serve.stderr.contains("cannot find Lector's lectord program: looked in \(root.path)/bin/lectord"), "\(serve)")
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))
    }

    // MARK: - Where Lector's programs are found

    /// The one rule (`OwnExecutable.sibling`), on a package-like tree: the CLI in PREFIX/bin finds
    /// the daemon and server in PREFIX/libexec/lector; the daemon finds its worker beside it and
    /// the CLI in PREFIX/bin; a build tree finds everything beside.
    func testSiblingsAreFoundBesideThenInTheInstallation() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lector-split-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let prefix = root.appendingPathComponent("usr").path
        let build = root.appendingPathComponent("build").path
        for path in ["\(prefix)/bin/lector", "\(prefix)/libexec/lector/lectord", "\(prefix)/libexec/lector/lector-view",
                     "\(prefix)/libexec/lector/lector-tools",
                     "\(prefix)/libexec/lector/lector-piper", "\(build)/lector", "\(build)/lectord"] {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("#!/bin/sh\n".utf8),
                                                         attributes: [.posixPermissions: 0o755]))
        }
        let cli = "\(prefix)/bin/lector", daemon = "\(prefix)/libexec/lector/lectord"
        XCTAssertEqual(OwnExecutable.sibling(named: "lectord", besideProgram: cli).path, daemon)
        XCTAssertEqual(OwnExecutable.sibling(named: "lector-view", besideProgram: cli).path, "\(prefix)/libexec/lector/lector-view")
        XCTAssertEqual(OwnExecutable.sibling(named: "lector-tools", besideProgram: cli).path, "\(prefix)/libexec/lector/lector-tools")
        XCTAssertEqual(OwnExecutable.sibling(named: "lector-piper", besideProgram: daemon).path, "\(prefix)/libexec/lector/lector-piper")
        XCTAssertEqual(OwnExecutable.sibling(named: "lector", besideProgram: daemon).path, cli)
        XCTAssertEqual(OwnExecutable.sibling(named: "lectord", besideProgram: "\(build)/lector").path, "\(build)/lectord")
        let missing = OwnExecutable.sibling(named: "lector-view", besideProgram: "\(build)/lector")
        XCTAssertEqual(Array(missing.looked.prefix(3)), ["\(build)/lector-view", "\(root.path)/libexec/lector/lector-view",
                                                        "\(root.path)/bin/lector-view"])
        XCTAssertEqual(Array(missing.looked.dropFirst(3)), ["/usr/libexec/lector/lector-view", "/usr/bin/lector-view"],
                       "then the package's places, never PATH")
    }

    // MARK: - Helpers

    private func busOwnerPID(_ session: TestSession, _ name: String) throws -> Int32? {
        let owner = try session.run("busctl", ["--user", "--json=short", "status", name])
        return owner.stdout.range(of: #"PID=[0-9]+"#, options: .regularExpression).flatMap { Int32(owner.stdout[$0].dropFirst(4)) }
    }

    private func executable(of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    private func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }
}
