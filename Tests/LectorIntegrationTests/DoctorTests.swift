import Foundation
import LectorTestKit
import XCTest

/// `lector doctor` in private sessions: what it finds and how it exits.
final class DoctorTests: XCTestCase {
    private var lector: String { LectorExecutable.path }

    /// The line of the check named `check` (after its status column), e.g. "sound server".
    private func line(_ check: String, in output: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.dropFirst(8).hasPrefix(check + ":") }
    }

    private func status(_ line: String?) -> String? {
        line.map { String($0.prefix(8)).trimmingCharacters(in: .whitespaces) }
    }

    func testHealthySessionHasNoFailures() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        try session.installDBusService(name: LectorFixture.service, executable: lector, arguments: ["serve"])

        let doctor = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(doctor.status, 0, "\(doctor)")
        let output = doctor.stdout
        XCTAssertFalse(output.contains("FAIL"), "\(doctor)")
        for check in ["session bus", "lector service", "sound server", "voices", "config", "book", "activation file",
                      "systemd unit", "desktop file", "icon"] {
            XCTAssertNotNil(line(check, in: output), "no \(check) line: \(doctor)")
        }
        XCTAssertEqual(status(line("session bus", in: output)), "ok", output)
        XCTAssertTrue(line("session bus", in: output)?.contains(session.busAddress) == true, output)
        XCTAssertEqual(status(line("sound server", in: output)), "ok", output)
        XCTAssertTrue(line("sound server", in: output)?.contains("default sink lector_test") == true, output)
        XCTAssertEqual(status(line("voices", in: output)), "ok", output)
        XCTAssertEqual(status(line("config", in: output)), "ok", output)
        XCTAssertTrue(line("config", in: output)?.contains("using the defaults") == true, output)
        XCTAssertEqual(line("book", in: output), "ok      book: no book has been read yet", output)
        XCTAssertEqual(status(line("lector service", in: output)), "ok", output)
        XCTAssertTrue(line("lector service", in: output)?.contains("starts it on first use") == true, output)
        XCTAssertTrue(output.hasSuffix("0 failed\n"), output)
        // Doctor looks, it does not start the daemon.
        XCTAssertFalse(try session.busNameHasOwner(LectorFixture.service))

        // With the daemon running, doctor says so.
        let daemon = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName(LectorFixture.service, timeout: 15)
        let running = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(running.status, 0, "\(running)\n\(daemon.output)")
        let service = line("lector service", in: running.stdout)
        XCTAssertEqual(status(service), "ok", running.stdout)
        XCTAssertTrue(service?.contains("is running (pid \(daemon.pid)") == true, running.stdout)
    }

    func testMissingSoundServerFails() throws {
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        let started = Date()
        let doctor = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(doctor.status, 1, "\(doctor)")
        let sound = try XCTUnwrap(line("sound server", in: doctor.stdout), "\(doctor)")
        XCTAssertEqual(status(sound), "FAIL", sound)
        XCTAssertTrue(sound.contains("PULSE_SERVER=\(session.pulseServer)"), sound)
        XCTAssertTrue(sound.contains("Fix: start PipeWire"), sound)
        // Nothing else fails, and a refused connection does not wait for the timeout.
        XCTAssertEqual(doctor.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.count, 1,
                       "only the sound server may fail: \(doctor)")
        XCTAssertEqual(status(line("session bus", in: doctor.stdout)), "ok", doctor.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(doctor.stdout.hasSuffix("1 failed\n"), doctor.stdout)
    }

    func testInvalidConfigIsReportedWithFileLineAndReason() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let directory = try XCTUnwrap(session.environment["XDG_CONFIG_HOME"]) + "/lector"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/config.toml"
        try "# my settings\n[speech]\nrate = 1.2\npitch = 3\n".write(toFile: path, atomically: true, encoding: .utf8)

        let doctor = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(doctor.status, 1, "\(doctor)")
        let config = try XCTUnwrap(line("config", in: doctor.stdout), "\(doctor)")
        XCTAssertTrue(config.hasPrefix("FAIL    config: \(path):4: pitch must be from 0 to 2, not 3. Fix: "), config)
        XCTAssertEqual(status(line("sound server", in: doctor.stdout)), "ok", doctor.stdout)

        // --config checks another file; a syntax error names its line too.
        let other = session.directory.appendingPathComponent("other.toml").path
        try "[notifications]\nenabled = true\nallow = [\"Signal\"\n".write(toFile: other, atomically: true, encoding: .utf8)
        let explicit = try session.run(lector, ["doctor", "--config", other], timeout: 30)
        XCTAssertEqual(explicit.status, 1, "\(explicit)")
        XCTAssertTrue(line("config", in: explicit.stdout)?
            .hasPrefix("FAIL    config: \(other):3: unterminated array (a closing ] is missing)") == true, explicit.stdout)

        let missing = try session.run(lector, ["doctor", "--config", other + ".missing"], timeout: 30)
        XCTAssertEqual(missing.status, 1, "\(missing)")
        XCTAssertEqual(status(line("config", in: missing.stdout)), "FAIL", missing.stdout)

        // A valid file is ok; a voice that is not installed is a warning, not a failure.
        try "[speech]\nrate = 1.2\n[voices]\nen = \"en-gb\"\nde = \"nosuchvoice\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let warned = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(warned.status, 0, "\(warned)")
        let voices = try XCTUnwrap(line("config", in: warned.stdout), warned.stdout)
        XCTAssertEqual(status(voices), "warning", voices)
        XCTAssertTrue(voices.contains("de = \"nosuchvoice\""), voices)
        XCTAssertFalse(voices.contains("en-gb"), voices)
    }
}
