import Foundation
import LectorTestKit
import XCTest

// TEMPORARY diagnostic, to be deleted.
final class DebugTimelineTests: XCTestCase {
    func timeline(_ fixture: PlayerFixture, _ label: String, seconds: Double) {
        let start = Date()
        var line = "\(label):"
        var t = 0.0
        while t < seconds {
            let tick = start.addingTimeInterval(t + 0.5)
            Thread.sleep(until: tick)
            let loud = fixture.recording.firstSound(after: tick.addingTimeInterval(-0.5)) != nil
            let position = (try? fixture.position()) ?? -1
            let ranges = fixture.signals("SpeakingRange", since: start).count
            line += String(format: " [%.1f %@ p=%.1f r=%d]", t + 0.5, loud ? "S" : "-", Double(position) / 1e6, ranges)
            t += 0.5
        }
        print(line)
    }

    func testTimeline() throws {
        let book = BookFixtures.wasteland
        var stuck = 0
        for attempt in 0..<8 {
            let fixture = try PlayerFixture()
            defer { fixture.shutdown() }
            if attempt % 2 == 1 { _ = try fixture.setProperty("LoopStatus", "s", "None") }
            let opened = try fixture.open(book, chapter: 6)
            Thread.sleep(forTimeInterval: 1.5)
            let p = try fixture.position()
            if p < 300_000 {
                stuck += 1
                let inputs = try fixture.session.run("pactl", ["list", "sink-inputs"]).stdout
                    .components(separatedBy: "Sink Input #").filter { $0.contains("narration") }
                print("STUCK attempt \(attempt) p=\(p) open->reply \(Date().timeIntervalSince(opened))\n\(inputs.joined())")
                timeline(fixture, "stuck", seconds: 6)
                _ = try fixture.playerctl("pause"); _ = try fixture.playerctl("play")
                timeline(fixture, "after pause/play", seconds: 2)
            } else {
                print("ok attempt \(attempt) p=\(p)")
            }
        }
        print("stuck \(stuck) of 8")
    }
}
