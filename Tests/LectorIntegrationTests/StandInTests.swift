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
        let maps = try speakAndReadMaps()
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
        let pcaudio = URL(fileURLWithPath: LectorExecutable.path).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("liblector-pcaudio-stand-in.so")
        var directory = URL(fileURLWithPath: "/")
        let maps = try speakAndReadMaps { session in
            directory = session.directory.appendingPathComponent("stand-ins")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try session.compileSharedLibrary("int lector_nothing_here;\n", to: directory.appendingPathComponent("liblector-sndfile-stand-in.so"),
                                             flags: ["-Wl,-soname,libsndfile.so.1"])
            try FileManager.default.copyItem(at: pcaudio, to: directory.appendingPathComponent(pcaudio.lastPathComponent))
            return ["LECTOR_STAND_INS": directory.path]
        }
        XCTAssertTrue(maps.contains("libsndfile.so.1"), "the real libsndfile was not loaded:\n\(maps)")
        XCTAssertFalse(maps.contains(directory.appendingPathComponent("liblector-sndfile-stand-in.so").path),
                       "the stand-in that falls short stayed loaded:\n\(maps)")
        XCTAssertTrue(maps.contains(directory.appendingPathComponent("liblector-pcaudio-stand-in.so").path),
                      "pcaudio's stand-in was not used:\n\(maps)")
        XCTAssertFalse(maps.contains("libasound.so"), maps)

        let real = try speakAndReadMaps { _ in ["LECTOR_STAND_INS": "0"] }
        XCTAssertFalse(real.contains("stand-in"), real)
        XCTAssertTrue(real.contains("libsndfile.so.1") && real.contains("libpcaudio.so.0"), real)
    }

    /// Starts the daemon in a session of its own with the environment `prepare` returns (it may
    /// put files in the session's directory), has it say a sentence, asserts it was heard, and
    /// returns the paths the daemon maps then.
    private func speakAndReadMaps(_ prepare: (TestSession) throws -> [String: String] = { _ in [:] }) throws -> String {
        let session = try TestSession(sinks: ["lector_test"])
        defer { session.shutdown() }
        let environment = try prepare(session)
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
}
