import Foundation
import LectorTestKit
import XCTest

/// config.toml as the daemon follows it: read at start, on SIGHUP and by `Reload`; a broken file
/// is reported with file, line and reason and the last good configuration stays in force.
/// The effect is heard: `[speech] volume` changes how loud the sink's monitor records speech.
final class ConfigTests: XCTestCase {
    private var lector: String { LectorExecutable.path }

    private func configPath(_ session: TestSession) throws -> String {
        let directory = try XCTUnwrap(session.environment["XDG_CONFIG_HOME"]) + "/lector"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/config.toml"
    }

    /// Speaks a short text, waits until it was heard, and returns its peak amplitude on the monitor.
    private func loudness(_ fixture: LectorFixture, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let before = Date()
        let id = try fixture.speak(Texts.short, file: file, line: line)
        let finished = fixture.finished(id, timeout: 15)
        XCTAssertEqual(finished?.arguments.last, "done", "speech \(id) did not finish\(fixture.context)", file: file, line: line)
        _ = fixture.recording.waitForSilence(quiet: 0.2, timeout: 5)
        return fixture.recording.peakAmplitude(after: before)
    }

    private func waitForLog(_ daemon: ManagedProcess, _ text: String, occurrences: Int = 1) -> Bool {
        poll(timeout: 10) { daemon.output.components(separatedBy: text).count - 1 >= occurrences }
    }

    func testReloadAppliesTheFileAndRefusesABrokenOne() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let path = try configPath(fixture.session)
        let loud = try loudness(fixture)
        XCTAssertGreaterThan(loud, 2000, "default volume speech is barely audible\(fixture.context)")

        try "# quieter\n[speech]\nvolume = 0.2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let reload = try fixture.call("Reload", [])
        XCTAssertTrue(reload.succeeded, "\(reload)\(fixture.context)")
        let quiet = try loudness(fixture)
        XCTAssertLessThan(Double(quiet), Double(loud) * 0.5, "volume = 0.2 was not applied (\(quiet) vs \(loud))")

        // Broken: refused with file, line and reason; the last good file stays in force.
        try "# quieter\n[speech]\nvolume = 0.2\nrate = 9\n".write(toFile: path, atomically: true, encoding: .utf8)
        let broken = try fixture.call("Reload", [])
        fixture.assertError(broken, "BadConfig", "Reload of a broken file")
        XCTAssertTrue(broken.stderr.contains("\(path):4: rate must be from 0.5 to 2.5, not 9"), "\(broken)")
        let stillQuiet = try loudness(fixture)
        XCTAssertLessThan(Double(stillQuiet), Double(loud) * 0.5, "the last good volume was not kept (\(stillQuiet) vs \(loud))")
        fixture.assertServing("after a broken Reload")

        // Removing the file brings the defaults back.
        try FileManager.default.removeItem(atPath: path)
        XCTAssertTrue(try fixture.call("Reload", []).succeeded)
        let loudAgain = try loudness(fixture)
        XCTAssertGreaterThan(Double(loudAgain), Double(loud) * 0.7, "defaults not restored (\(loudAgain) vs \(loud))")
    }

    func testSIGHUPReloadsAndLogsABrokenFile() throws {
        let fixture = try LectorFixture()
        defer { fixture.shutdown() }
        let path = try configPath(fixture.session)
        let loud = try loudness(fixture)

        try "[speech]\nvolume = 0.2\n".write(toFile: path, atomically: true, encoding: .utf8)
        fixture.daemon.send(signal: SIGHUP)
        XCTAssertTrue(waitForLog(fixture.daemon, "configuration loaded from \(path)"), "no reload logged\(fixture.context)")
        let quiet = try loudness(fixture)
        XCTAssertLessThan(Double(quiet), Double(loud) * 0.5, "SIGHUP did not apply volume = 0.2 (\(quiet) vs \(loud))")

        try "[speech]\nvolume = 0.2\n[audio]\nduck-level = 30%\n".write(toFile: path, atomically: true, encoding: .utf8)
        fixture.daemon.send(signal: SIGHUP)
        XCTAssertTrue(waitForLog(fixture.daemon, "invalid configuration, keeping the last good one: \(path):4: invalid number 30%"),
                      "the broken file was not reported with its line\(fixture.context)")
        fixture.assertServing("after SIGHUP with a broken file")
        let stillQuiet = try loudness(fixture)
        XCTAssertLessThan(Double(stillQuiet), Double(loud) * 0.5, "the last good volume was not kept (\(stillQuiet) vs \(loud))")
    }

    func testBrokenFileAtStartLeavesTheDefaults() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        let path = try configPath(session)
        try "[speech]\nrate = 1.2\nspeed = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"])
        try session.waitForBusName(LectorFixture.service, timeout: 15)
        XCTAssertTrue(waitForLog(daemon, "\(path):3: unknown key speed in [speech] (known keys: rate, pitch, volume)"),
                      "the broken file was not reported:\n\(daemon.output)")
        let speak = try session.run("gdbus", LectorFixture.gdbusCall("Speak", ["Still here.", "{}"]), timeout: 15)
        XCTAssertTrue(speak.succeeded, "\(speak)\n\(daemon.output)")

        // `lector doctor` reports the same line.
        let doctor = try session.run(lector, ["doctor"], timeout: 30)
        XCTAssertEqual(doctor.status, 1, "\(doctor)")
        XCTAssertTrue(doctor.stdout.contains("FAIL    config: \(path):3: unknown key speed in [speech]"), "\(doctor)")
    }
}
