import Foundation
import LectorNeuralSpeech
import XCTest

/// `NeuralVoiceFinder.Stamp`: what tells the daemon its look at the voice directories is stale.
final class NeuralVoiceFinderStampTests: XCTestCase {
    func testAVoiceDirectoryCreatedOrChangedChangesTheStamp() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("lector-stamp-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "XDG_DATA_DIRS": home + "/none"]
        let voices = home + "/data/lector/voices"

        let absent = NeuralVoiceFinder.Stamp(environment: environment)
        XCTAssertTrue(absent.settled, "no directory: nothing can change unseen")
        XCTAssertEqual(NeuralVoiceFinder.Stamp(environment: environment), absent)

        try FileManager.default.createDirectory(atPath: voices, withIntermediateDirectories: true)
        let created = NeuralVoiceFinder.Stamp(environment: environment)
        XCTAssertNotEqual(created, absent)
        XCTAssertFalse(created.settled, "changed just now: a change in the same tick would not show")
        XCTAssertTrue(NeuralVoiceFinder.Stamp(environment: environment, now: Date().addingTimeInterval(2)).settled)

        // A later change (a rename into it, as lector voices add does) shows in the stamp.
        var info = stat()
        XCTAssertEqual(stat(voices, &info), 0)
        var old = [timespec(tv_sec: info.st_mtim.tv_sec - 10, tv_nsec: 0), timespec(tv_sec: info.st_mtim.tv_sec - 10, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, voices, &old, 0), 0)
        let settled = NeuralVoiceFinder.Stamp(environment: environment)
        XCTAssertTrue(settled.settled)
        FileManager.default.createFile(atPath: voices + "/.x.onnx.tmp", contents: Data("{}".utf8))
        XCTAssertEqual(rename(voices + "/.x.onnx.tmp", voices + "/x.onnx.json"), 0)
        XCTAssertNotEqual(NeuralVoiceFinder.Stamp(environment: environment), settled)
    }
}
