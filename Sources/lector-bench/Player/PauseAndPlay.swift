import Foundation
import LectorTestKit

/// One pause and one play sent by playerctl, each timed at the player's sink monitor: the
/// shared step of `lector-bench sink` (lector against mpv) and `lector-bench neural` (two voices).
struct PauseAndPlay {
    /// Pause → last sound and play → first sound at speech level, and the same two to the
    /// noise floor (a voice's quiet stretch just before a pause would otherwise count as silence).
    var pause: Double?
    var play: Double?
    var pauseFloor: Double?
    var playFloor: Double?

    static let floor: Int16 = 16

    /// Appends each figure that was measured to `samples` ("pause", "play", "pauseFloor", "playFloor").
    func record(into samples: inout [String: [Double]]) {
        for (key, value) in [("pause", pause), ("play", play), ("pauseFloor", pauseFloor), ("playFloor", playFloor)] {
            if let value { samples[key, default: []].append(value) }
        }
    }
    /// parec's latency on the monitor for these figures. A null sink renders as far ahead as its
    /// lowest-latency client asks (here the recorder), and `MonitorRecording` dates samples back
    /// from their arrival: at the test kit's 5 ms a play was dated ~3 ms before the daemon got
    /// the D-Bus call (traced); at 1 ms the order holds.
    static let monitorLatency = 1

    /// Waits for sound first: a pause in a gap between words would read as instant, so the
    /// figure would follow the voice's pauses rather than the player.
    static func measure(_ player: String, in session: TestSession, recording: MonitorRecording) throws -> PauseAndPlay {
        var figures = PauseAndPlay()
        _ = recording.waitForSound(after: Date(), timeout: 2)
        let pause = Date()
        _ = try session.run("playerctl", ["-p", player, "pause"])
        Thread.sleep(forTimeInterval: 0.4)
        let before = pause.addingTimeInterval(-1)
        figures.pause = recording.lastSound(after: before).map { $0.timeIntervalSince(pause) * 1000 }
        figures.pauseFloor = recording.lastSound(after: before, threshold: floor).map { $0.timeIntervalSince(pause) * 1000 }
        let play = Date()
        _ = try session.run("playerctl", ["-p", player, "play"])
        figures.play = recording.waitForSound(after: play, timeout: 3).map { $0.timeIntervalSince(play) * 1000 }
        figures.playFloor = recording.firstSound(after: play, threshold: floor).map { $0.timeIntervalSince(play) * 1000 }
        return figures
    }
}
