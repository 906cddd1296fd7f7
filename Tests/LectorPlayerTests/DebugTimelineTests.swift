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
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        for attempt in 0..<10 {
            let chapter = [6, 0, 1][attempt % 3]
            try fixture.open(book, chapter: chapter)
            if attempt % 2 == 1 { _ = try fixture.playerctl("next") }
            timeline(fixture, "attempt \(attempt) c\(chapter)\(attempt % 2 == 1 ? "+next" : "")", seconds: 4)
        }
    }
}
