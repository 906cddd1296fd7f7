import Foundation
import LectorTestKit
import XCTest

/// `lector say`: the command-line client, as scripts use it.
final class CLITests: XCTestCase {
    private var lector: String { LectorExecutable.path }

    func testSayWaitReturnsAfterTheSoundEnded() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let recording = fixture.recording

        let called = Date()
        let say = try fixture.session.run(lector, ["say", "--wait", "Hello from the command line."], timeout: 20)
        let returned = Date()
        XCTAssertEqual(say.status, 0, "\(say)\(fixture.context)")
        let firstSound = try XCTUnwrap(recording.firstSound(after: called), "nothing was heard before say returned\(fixture.context)")
        XCTAssertLessThan(firstSound, returned)
        XCTAssertTrue(recording.waitForSilence(quiet: 0.3, timeout: 5))
        let lastSound = try XCTUnwrap(recording.lastSound(after: called))
        XCTAssertLessThan(lastSound, returned.addingTimeInterval(0.15),
                          "say --wait returned \(returned.since(lastSound)) relative to the last sound, i.e. before the end\(fixture.context)")
        XCTAssertGreaterThan(recording.soundDuration(after: called), 0.8, "the sentence was cut short")
        let finished = try XCTUnwrap(fixture.watcher.wait(timeout: 2) { $0.member == "SpeechFinished" }, fixture.context)
        XCTAssertEqual(finished.arguments.last, "done", fixture.context)

        // The same from standard input, with options.
        let fromStdin = Date()
        let piped = try fixture.session.run(lector, ["say", "--wait", "--rate", "1.5", "--language", "en-GB", "-"],
                                            stdin: Data("Gr\u{00FC}\u{00DF}e from standard input.".utf8), timeout: 20)
        XCTAssertEqual(piped.status, 0, "\(piped)\(fixture.context)")
        XCTAssertNotNil(recording.firstSound(after: fromStdin), "stdin text not heard\(fixture.context)")
    }

    func testSayWithoutWaitReturnsWhileSpeaking() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let say = try fixture.session.run(lector, ["say", Texts.long], timeout: 20)
        let returned = Date()
        XCTAssertEqual(say.status, 0, "\(say)\(fixture.context)")
        XCTAssertNotNil(fixture.sound(after: returned.addingTimeInterval(0.5), timeout: 3),
                        "speech must go on after say returned\(fixture.context)")
        XCTAssertTrue(try fixture.call("Stop", []).succeeded)
    }

    func testSayWaitWithUnknownVoiceFailsNamingTheError() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let called = Date()
        let say = try fixture.session.run(lector, ["say", "--wait", "--voice", "nosuchvoice", "hi"], timeout: 20)
        XCTAssertNotEqual(say.status, 0, "\(say)")
        XCTAssertFalse(say.timedOut, "\(say)")
        XCTAssertTrue(say.stderr.contains("UnknownVoice"), "stderr must name the error: \(say)")
        XCTAssertTrue(say.stderr.contains("nosuchvoice"), "\(say)")
        XCTAssertNil(fixture.recording.firstSound(after: called), "nothing may be heard")
        fixture.assertServing("after say --voice nosuchvoice")
    }

    func testSayStartsTheDaemonByDBusActivation() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let recording = try session.record()
        // As the package's activation file: Exec=/usr/libexec/lector/lectord.
        let lectord = BuiltProduct.path(named: "lectord", overrideVariable: "LECTORD_BIN")
        try session.installDBusService(name: LectorFixture.service, executable: lectord)
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))

        let called = Date()
        let say = try session.run(lector, ["say", "Started by the bus."], timeout: 20)
        XCTAssertEqual(say.status, 0, "\(say)\n\(session.diagnostics)")
        XCTAssertTrue(try session.busNameHasOwner(LectorFixture.service), "no daemon on the bus after say")
        XCTAssertNotNil(recording.waitForSound(after: called, timeout: 5), "not heard\n\(session.diagnostics)")

        // Started by dbus-daemon (which marks what it activates), not by the CLI's own fallback.
        let owner = try session.run("busctl", ["--user", "--json=short", "status", LectorFixture.service])
        let pid = try XCTUnwrap(owner.stdout.range(of: #"PID=[0-9]+"#, options: .regularExpression)
            .flatMap { Int32(owner.stdout[$0].dropFirst(4)) }, "\(owner)")
        let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertTrue(variables.contains("DBUS_STARTER_BUS_TYPE=session"),
                      "the daemon (pid \(pid)) was not started by D-Bus activation: \(variables.filter { $0.hasPrefix("DBUS") })")
        let cmdline = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        XCTAssertTrue(cmdline.hasSuffix("/lectord\0"), cmdline)
    }

    func testSayStartsTheDaemonItselfWithoutAnActivationFile() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let recording = try session.record()
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))

        let called = Date()
        let say = try session.run(lector, ["say", "--wait", "Started by the client."], timeout: 30)
        XCTAssertEqual(say.status, 0, "\(say)\n\(session.diagnostics)")
        XCTAssertNotNil(recording.firstSound(after: called), "not heard\n\(session.diagnostics)")
        XCTAssertTrue(try session.busNameHasOwner(LectorFixture.service), "the daemon must outlive the client")
    }

    func testSayWaitFailsWhenTheDaemonIsKilledMidSpeech() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }

        let called = Date()
        let say = try fixture.session.spawn(lector, ["say", "--wait", Texts.long])
        XCTAssertNotNil(fixture.recording.waitForSound(after: called, timeout: 5), "not heard\(fixture.context)\n\(say.output)")
        XCTAssertNotNil(fixture.watcher.wait(timeout: 5) { $0.member == "SpeechStarted" }, fixture.context)
        XCTAssertTrue(say.isRunning, "say --wait returned while speaking: \(say.output)")

        fixture.daemon.terminate(signal: SIGKILL, grace: 2)
        let status = try XCTUnwrap(say.waitForExit(timeout: 5), "say --wait hangs after the daemon died")
        XCTAssertNotEqual(status, 0, say.output)
        XCTAssertTrue(say.standardError.contains("exited") || say.standardError.contains("daemon"),
                      "the message should say the daemon went away: \(say.output)")
    }

    func testSayRefusesInvalidUTF8() throws {
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }

        let stdin = try session.run(lector, ["say", "-"], stdin: Data([0x66, 0xFF, 0x66]), timeout: 20)
        XCTAssertNotEqual(stdin.status, 0, "\(stdin)")
        XCTAssertFalse(stdin.timedOut)
        XCTAssertTrue(stdin.stderr.contains("UTF-8"), "\(stdin)")
        XCTAssertTrue(stdin.stderr.contains("offset 1"), "the message should point at the bad byte: \(stdin)")

        // argv is bytes too; session.run takes Swift strings, so a shell puts the byte there.
        let argv = try session.run("sh", ["-c", #"exec "$0" say "$(printf 'f\377f')""#, lector], timeout: 20)
        XCTAssertNotEqual(argv.status, 0, "\(argv)")
        XCTAssertTrue(argv.stderr.contains("UTF-8"), "\(argv)")

        // Refused before the bus is even asked: no daemon was started for it.
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))
    }
}
