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
    /// Pause and play of the trials whose sound was cut (or began) mid-sound: loud (`midSound`)
    /// within 2 ms of the last (first) sample above speech level. Where the voice fell silent on
    /// its own (a word's end, a gap) the last sound is earlier than the cut, by as much as the
    /// voice says there; trials cut mid-sound time the player alone, whatever the voice.
    var pauseMidSound: Double?
    var playMidSound: Double?
    /// Pause and play of the trials in which the watched processes (`measure`'s `pids`: the
    /// daemon and a voice worker) ran less than `quietCPU` ms: no synthesis ran beside the pause
    /// or play (a refill takes a neural voice about a second of CPU, espeak-ng tens of ms).
    var pauseQuiet: Double?
    var playQuiet: Double?

    static let quietCPU = 3.0

    static let midSound = 3000

    static let floor: Int16 = 16

    /// Appends each figure that was measured to `samples` ("pause", "play", "pauseFloor",
    /// "playFloor", and "pausePlay", their sum).
    func record(into samples: inout [String: [Double]]) {
        for (key, value) in [("pause", pause), ("play", play), ("pauseFloor", pauseFloor), ("playFloor", playFloor),
                             ("pausePlay", pausePlay), ("pauseMidSound", pauseMidSound), ("playMidSound", playMidSound),
                             ("pauseQuiet", pauseQuiet), ("playQuiet", playQuiet)] {
            if let value { samples[key, default: []].append(value) }
        }
    }

    /// Pause and play of one trial together. What the voice says where the pause falls biases
    /// each alone, in opposite directions: a pause in a gap between words reads early by the gap
    /// heard before it, and the play after it late by the rest of that gap. Their sum is free of
    /// it on average, so voices with more or fewer gaps compare fairly.
    var pausePlay: Double? {
        guard let pause, let play else { return nil }
        return pause + play
    }
    /// parec's latency on the monitor for these figures. A null sink renders as far ahead as its
    /// lowest-latency client asks (here the recorder), and `MonitorRecording` dates samples back
    /// from their arrival: at the test kit's 5 ms a play was dated ~3 ms before the daemon got
    /// the D-Bus call (traced); at 1 ms the order holds.
    static let monitorLatency = 1

    /// Waits for sound first: a pause in a gap between words would read as instant, so the
    /// figure would follow the voice's pauses rather than the player.
    static func measure(_ player: String, in session: TestSession, recording: MonitorRecording,
                        pids: () -> [Int32] = { [] }) throws -> PauseAndPlay {
        var figures = PauseAndPlay()
        _ = recording.waitForSound(after: Date(), timeout: 2)
        let watched = pids()
        let pauseCPU = ProcessCounters.cpuMilliseconds(watched)
        let pause = Date()
        _ = try session.run("playerctl", ["-p", player, "pause"])
        Thread.sleep(forTimeInterval: 0.4)
        let pauseQuiet = !watched.isEmpty && ProcessCounters.cpuMilliseconds(watched) - pauseCPU < quietCPU
        let before = pause.addingTimeInterval(-1)
        let last = recording.lastSound(after: before)
        figures.pause = last.map { $0.timeIntervalSince(pause) * 1000 }
        if let last, recording.peakAmplitude(from: last.addingTimeInterval(-0.002), to: last.addingTimeInterval(0.0001)) >= midSound {
            figures.pauseMidSound = figures.pause
        }
        figures.pauseFloor = recording.lastSound(after: before, threshold: floor).map { $0.timeIntervalSince(pause) * 1000 }
        if pauseQuiet { figures.pauseQuiet = figures.pause }
        let playCPU = ProcessCounters.cpuMilliseconds(watched)
        let play = Date()
        _ = try session.run("playerctl", ["-p", player, "play"])
        let first = recording.waitForSound(after: play, timeout: 3)
        figures.play = first.map { $0.timeIntervalSince(play) * 1000 }
        if let first {
            Thread.sleep(forTimeInterval: 0.01)   // the 2 ms after it recorded
            if recording.peakAmplitude(from: first, to: first.addingTimeInterval(0.002)) >= midSound { figures.playMidSound = figures.play }
        }
        figures.playFloor = recording.firstSound(after: play, threshold: floor).map { $0.timeIntervalSince(play) * 1000 }
        // Up to 10 ms after the first sound: what the play itself costs, not the refill it may start later.
        if !watched.isEmpty, ProcessCounters.cpuMilliseconds(watched) - playCPU < quietCPU { figures.playQuiet = figures.play }
        return figures
    }
}
