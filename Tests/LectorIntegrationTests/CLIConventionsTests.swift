import Foundation
import LectorCore
import LectorTestKit
import XCTest

/// The CLI as people expect it, tried as a new user would: words joined as spd-say and espeak-ng
/// do, short options, --version, exit statuses (64 for a wrong command line, 1 for a failure),
/// Ctrl-C, no daemon started just to say that nothing runs, and a daemon it starts detached
/// from the terminal.
final class CLIConventionsTests: XCTestCase {
    private var lector: String { LectorExecutable.path }

    func testSayJoinsItsWordsAndTakesShortOptions() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }

        // Unquoted words: one speech, the words joined with spaces.
        let words = Texts.long.split(separator: " ").map(String.init)
        let say = try fixture.session.run(lector, ["say", "-p", "message"] + words, timeout: 20)
        XCTAssertEqual(say.status, 0, "\(say)\(fixture.context)")
        let queue = try fixture.session.run(lector, ["queue"], timeout: 20)
        XCTAssertEqual(queue.status, 0, "\(queue)")
        let lines = queue.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one speech for all the words: \(queue.stdout)")
        XCTAssertTrue(lines.first?.contains("speaking\tThis is a long text that keeps the speaker busy") == true, queue.stdout)
        XCTAssertEqual(try fixture.session.run(lector, ["cancel", "-a"], timeout: 20).status, 0)
        XCTAssertTrue(fixture.recording.waitForSilence(quiet: 0.3, timeout: 3), "cancel -a left it speaking\(fixture.context)")

        // -w -r -l, as with --wait --rate --language.
        let called = Date()
        let short = try fixture.session.run(lector, ["say", "-w", "-r", "1.5", "-l", "en-GB", "Short", "options", "work."], timeout: 20)
        XCTAssertEqual(short.status, 0, "\(short)\(fixture.context)")
        XCTAssertNotNil(fixture.recording.firstSound(after: called), "not heard\(fixture.context)")
        let unknown = try fixture.session.run(lector, ["say", "-v", "nosuchvoice", "hi"], timeout: 20)
        XCTAssertEqual(unknown.status, 1, "an unknown voice is a failure the daemon reports: \(unknown)")
        XCTAssertTrue(unknown.stderr.contains("UnknownVoice"), "\(unknown)")
    }

    /// 64: the command line is wrong in itself, found before anything is done (no daemon is
    /// started for it, even where D-Bus activation could). 1: what the daemon or the system refused.
    func testVersionUsageErrorsExit64AndFailuresExit1() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        try session.installDBusService(name: LectorFixture.service, executable: lector, arguments: ["serve"])

        let version = try session.run(lector, ["--version"], timeout: 10)
        XCTAssertEqual(version.status, 0, "\(version)")
        XCTAssertEqual(version.stdout, "lector \(BusNames.version)\n")

        let usage: [[String]] = [
            ["say", "--rate", "3", "hi"], ["say", "--rate", "fast", "hi"], ["say", "-r", "0.1", "hi"],
            ["say", "--pitch", "9", "hi"], ["say", "--volume", "2", "hi"], ["say", "--priority", "urgent", "hi"],
            ["say", "--digits", "roman", "hi"], ["say"], ["say", "--nosuchoption", "hi"],
            ["read", "--chapter", "0", "book.epub"], ["read", "--from-start"], ["read", "--chapter", "two", "book.epub"],
            ["cancel"], ["cancel", "--all", "3"], ["notifications", "maybe"], ["frobnicate"],
        ]
        for arguments in usage {
            let result = try session.run(lector, arguments, timeout: 10)
            XCTAssertEqual(result.status, 64, "lector \(arguments.joined(separator: " ")): \(result)")
            XCTAssertTrue(result.stderr.contains("Error:") || result.stderr.contains("Usage:"), "says what is wrong: \(result)")
        }
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service), "a usage error started the daemon")

        let failures: [[String]] = [
            ["say", "--voice", "nosuchvoice", "hi"], ["read", session.directory.appendingPathComponent("missing.epub").path],
            ["cancel", "987654"],
        ]
        for arguments in failures {
            let result = try session.run(lector, arguments, timeout: 30)
            XCTAssertEqual(result.status, 1, "lector \(arguments.joined(separator: " ")): \(result)\n\(session.diagnostics)")
            XCTAssertTrue(result.stderr.contains("io.github.lector.Error."), "names the error: \(result)")
        }
    }

    func testCtrlCDuringSayWaitCancelsThatSpeech() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let called = Date()
        let say = try fixture.session.spawn(lector, ["say", "--wait", Texts.long])
        let started = try XCTUnwrap(fixture.watcher.wait(timeout: 10) { $0.member == "SpeechStarted" }, fixture.context)
        let id = try XCTUnwrap(UInt64(started.arguments.first ?? ""), started.raw)
        XCTAssertNotNil(fixture.recording.waitForSound(after: called, timeout: 5), "not heard\(fixture.context)")
        XCTAssertTrue(say.isRunning, "say --wait returned while speaking: \(say.output)")

        let interrupted = Date()
        say.send(signal: SIGINT)
        XCTAssertEqual(say.waitForExit(timeout: 5), 130, "Ctrl-C: exit 128 + SIGINT: \(say.output)")
        let finished = try XCTUnwrap(fixture.finished(id, timeout: 3), "no SpeechFinished after Ctrl-C\(fixture.context)")
        XCTAssertEqual(finished.arguments.last, "cancelled", finished.raw)
        XCTAssertLessThan(finished.receivedAt.timeIntervalSince(interrupted), 1, "cancelled late")
        XCTAssertTrue(fixture.recording.waitForSilence(quiet: 0.5, timeout: 3), "still talking after Ctrl-C\(fixture.context)")
        XCTAssertTrue(say.standardError.contains("cancelled"), "says so: \(say.output)")
        fixture.assertServing("after Ctrl-C")
    }

    func testWithoutADaemonReadOnlyCommandsSayItPlainlyAndStartNone() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        // Activation is there: anything that called the daemon would start it.
        try session.installDBusService(name: LectorFixture.service, executable: lector, arguments: ["serve"])

        let status = try session.run(lector, ["status"], timeout: 10)
        XCTAssertEqual(status.status, 0, "\(status)")
        XCTAssertEqual(status.stdout, "Lector is not running.\n")
        XCTAssertEqual(status.stderr, "", "no D-Bus jargon")
        let queue = try session.run(lector, ["queue"], timeout: 10)
        XCTAssertEqual(queue.status, 0, "\(queue)")
        XCTAssertEqual(queue.stdout, "nothing is being spoken or waiting (Lector is not running)\n")
        XCTAssertEqual(try session.run(lector, ["cancel", "--all"], timeout: 10).status, 0, "nothing to cancel is done")
        let cancel = try session.run(lector, ["cancel", "3"], timeout: 10)
        XCTAssertEqual(cancel.status, 1, "\(cancel)")
        XCTAssertTrue(cancel.stderr.contains("Lector is not running"), "\(cancel)")
        let follow = try session.spawn(lector, ["status", "-f"])
        XCTAssertTrue(poll(timeout: 5) { follow.standardOutput.contains("Lector is not running.") }, follow.output)
        follow.terminate(grace: 1)
        XCTAssertTrue(try holds(for: 0.5) { try !session.busNameHasOwner(LectorFixture.service) },
                      "a read-only command started the daemon\n\(session.diagnostics)")

        // The check above could fail: a command that changes something does start it.
        XCTAssertEqual(try session.run(lector, ["say", "hi"], timeout: 30).status, 0)
        XCTAssertTrue(try session.busNameHasOwner(LectorFixture.service))
        let running = try session.run(lector, ["status"], timeout: 10)
        XCTAssertEqual(running.stdout, "No book is open. Start one with: lector read FILE\n", "\(running)")
    }

    /// Without an activation file the CLI starts `lector serve` itself: in its own session, with
    /// no terminal, its standard input and output on /dev/null and its log in a file (or the
    /// journal), never in the terminal of the command that started it.
    func testADaemonStartedByTheCLIIsDetachedFromItsTerminal() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let say = try session.run(lector, ["say", "--wait", "Started", "by", "the", "client."], timeout: 30)
        XCTAssertEqual(say.status, 0, "\(say)\n\(session.diagnostics)")
        XCTAssertFalse(say.stderr.contains("lector["), "the daemon logged into the command's terminal: \(say.stderr)")
        XCTAssertEqual(say.stdout, "")

        let owner = try session.run("busctl", ["--user", "--json=short", "status", LectorFixture.service])
        let pid = try XCTUnwrap(owner.stdout.range(of: #"PID=[0-9]+"#, options: .regularExpression)
            .flatMap { Int32(owner.stdout[$0].dropFirst(4)) }, "\(owner)")
        // /proc/PID/stat after the command name: state ppid pgrp session tty_nr ...
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        XCTAssertEqual(Int32(fields[3]), pid, "not in a session of its own (setsid): \(stat)")
        XCTAssertEqual(Int32(fields[2]), pid, "not leading its own process group: \(stat)")
        XCTAssertEqual(fields[4], "0", "it has a controlling terminal: \(stat)")

        func target(_ fd: Int) -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)") }
        XCTAssertEqual(target(0), "/dev/null")
        XCTAssertEqual(target(1), "/dev/null")
        let journald = FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")
            && session.environment["LECTOR_LOG"] != "stderr"
        let log = session.environment["XDG_STATE_HOME"]! + "/lector/lector.log"
        if journald {
            XCTAssertEqual(target(2), "/dev/null", "it logs to the journal: nothing on standard error")
        } else {
            XCTAssertEqual(target(2), log, "without journald its log goes to a file")
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            XCTAssertTrue(text.contains("serving io.github.lector.Lector1"), "the log file: \(text)")
        }
        // The daemon outlives the command, as before.
        XCTAssertTrue(try session.busNameHasOwner(LectorFixture.service))
    }
}
