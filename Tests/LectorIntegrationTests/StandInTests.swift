import Foundation
import LectorTestKit
import XCTest

/// libpulse links libsndfile (and its eight codecs) and espeak-ng links pcaudio (and ALSA), none of
/// which the daemon calls: it loads its stand-ins for them first (CStandInSndfile, CStandInPcaudio),
/// and falls back to the real libraries when a stand-in is missing or falls short.
final class StandInTests: XCTestCase {
    /// What the stand-ins keep out of the daemon.
    static let neverCalled = ["libsndfile.so", "libFLAC.so", "libvorbis", "libopus.so", "libmpg123.so", "libmp3lame.so",
                              "libogg.so", "libpcaudio.so", "libasound.so"]

    func testTheDaemonSpeaksWithoutTheLibrariesItNeverCalls() throws {
        let maps = try speakAndReadMaps(environment: [:])
        XCTAssertTrue(maps.contains("liblector-sndfile-stand-in.so") && maps.contains("liblector-pcaudio-stand-in.so"),
                      "the stand-ins are not loaded:\n\(maps)")
        for library in Self.neverCalled {
            XCTAssertFalse(maps.contains(library), "the daemon maps \(library):\n\(maps)")
        }
    }

    /// A libpulse that needs more of libsndfile than the stand-in has (here: a stand-in with the
    /// soname and none of the functions) gets the real libsndfile; pcaudio's stand-in still serves.
    /// With LECTOR_STAND_INS=0, the real libraries throughout.
    func testAStandInThatFallsShortIsSetAsideForTheRealLibrary() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-stand-ins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("short.c")
        try "int lector_nothing_here;\n".write(to: source, atomically: true, encoding: .utf8)
        let short = directory.appendingPathComponent("liblector-sndfile-stand-in.so")
        let build = try runShell("\"$(command -v cc || command -v clang)\" -shared -fPIC -Wl,-soname,libsndfile.so.1 -o '\(short.path)' '\(source.path)'")
        XCTAssertEqual(build.status, 0, "the short stand-in did not compile: \(build)")
        let pcaudio = URL(fileURLWithPath: LectorExecutable.path).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("liblector-pcaudio-stand-in.so")
        try FileManager.default.copyItem(at: pcaudio, to: directory.appendingPathComponent(pcaudio.lastPathComponent))

        let maps = try speakAndReadMaps(environment: ["LECTOR_STAND_INS": directory.path])
        XCTAssertTrue(maps.contains("libsndfile.so.1"), "the real libsndfile was not loaded:\n\(maps)")
        XCTAssertFalse(maps.contains(short.path), "the stand-in that falls short stayed loaded:\n\(maps)")
        XCTAssertTrue(maps.contains(directory.appendingPathComponent("liblector-pcaudio-stand-in.so").path),
                      "pcaudio's stand-in was not used:\n\(maps)")
        XCTAssertFalse(maps.contains("libasound.so"), maps)

        let real = try speakAndReadMaps(environment: ["LECTOR_STAND_INS": "0"])
        XCTAssertFalse(real.contains("stand-in"), real)
        XCTAssertTrue(real.contains("libsndfile.so.1") && real.contains("libpcaudio.so.0"), real)
    }

    /// Starts the daemon with `environment`, has it say a sentence, asserts it was heard, and
    /// returns the paths the daemon maps then.
    private func speakAndReadMaps(environment: [String: String]) throws -> String {
        let session = try TestSession(sinks: ["lector_test"])
        defer { session.shutdown() }
        let recording = try session.record()
        let daemon = try session.spawn(LectorExecutable.path, ["serve"], extraEnvironment: environment.merging(["LECTOR_LOG": "stderr"]) { a, _ in a })
        try session.waitForBusName("io.github.lector.Lector1", timeout: 15)
        let asked = Date()
        let said = try session.run(LectorExecutable.path, ["say", "-w", "Payment received, thank you."], timeout: 30)
        XCTAssertEqual(said.status, 0, "\(said)\n\(daemon.output)")
        XCTAssertNotNil(recording.waitForSound(after: asked, timeout: 5), "nothing was heard:\n\(daemon.output)")
        // grep: Foundation reads only the start of a /proc file.
        let maps = try session.run("/bin/grep", ["-o", "/[^ ]*\\.so[^ ]*", "/proc/\(daemon.pid)/maps"])
        XCTAssertEqual(maps.status, 0, "\(maps)")
        XCTAssertTrue(daemon.isRunning, daemon.output)
        return Set(maps.stdout.split(separator: "\n").map(String.init)).sorted().joined(separator: "\n")
    }

    private func runShell(_ command: String) throws -> ProcessResult {
        let session = try TestSession(sinks: [], startSoundServer: false)
        defer { session.shutdown() }
        return try session.run("/bin/sh", ["-c", command])
    }
}
