import Foundation

/// What espeak-ng makes of a text, measured without listening: `espeak-ng --stdout` is read as
/// 16-bit mono WAV, silences are found in 10 ms windows, and the pitch of the voice just before
/// a silence by autocorrelation. Enough to tell a sentence end (long pause, falling pitch) from a
/// clause pause (shorter, level or rising) at one place in a test sentence.
struct EspeakRendering {
    let samples: [Double]
    let sampleRate: Int

    /// Renders `text` with the CLI (`voice` as `-v` takes it); nil when espeak-ng is missing.
    static func render(_ text: String, voice: String = "en") throws -> EspeakRendering? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        process.arguments = ["-v", voice, "--stdout", text]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard data.count > 44 else { return nil }
        let rate = Int(data[24]) | Int(data[25]) << 8 | Int(data[26]) << 16 | Int(data[27]) << 24
        let bytes = [UInt8](data.dropFirst(44))
        var samples: [Double] = []
        samples.reserveCapacity(bytes.count / 2)
        var index = 0
        while index + 1 < bytes.count {
            samples.append(Double(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)))
            index += 2
        }
        return EspeakRendering(samples: samples, sampleRate: rate)
    }

    private var window: Int { sampleRate / 100 }

    private func loudness(at windowIndex: Int) -> Double {
        let start = windowIndex * window
        let end = min(samples.count, start + 3 * window)
        guard start < end else { return 0 }
        var sum = 0.0
        for sample in samples[start..<end] { sum += sample * sample }
        return (sum / Double(end - start)).squareRoot()
    }

    /// The longest silence between the first and the last sound: where it starts (window index)
    /// and how long it lasts in milliseconds.
    func longestInnerPause() -> (start: Int, milliseconds: Int) {
        let windows = samples.count / window - 3
        guard windows > 0 else { return (0, 0) }
        let silent = (0..<windows).map { loudness(at: $0) < 100 }
        guard let first = silent.firstIndex(of: false), let last = silent.lastIndex(of: false) else { return (0, 0) }
        var best = (start: first, milliseconds: 0)
        var runStart: Int?
        for index in first...last {
            if silent[index] {
                if runStart == nil { runStart = index }
            } else if let start = runStart {
                if (index - start) * 10 > best.milliseconds { best = (start, (index - start) * 10) }
                runStart = nil
            }
        }
        return best
    }

    /// The median pitch (Hz) of the voiced windows in the 60 ms before window `end`, nil when none is voiced.
    func pitch(before end: Int) -> Double? {
        var pitches: [Double] = []
        for windowIndex in max(0, end - 8)..<end {
            let start = windowIndex * window
            let frame = Array(samples[start..<min(samples.count, start + 4 * window)])
            if let pitch = Self.pitch(of: frame, sampleRate: sampleRate) { pitches.append(pitch) }
        }
        let recent = pitches.suffix(4).sorted()
        return recent.isEmpty ? nil : recent[recent.count / 2]
    }

    private static func pitch(of frame: [Double], sampleRate: Int) -> Double? {
        guard frame.count > sampleRate / 60 else { return nil }
        let mean = frame.reduce(0, +) / Double(frame.count)
        let centred = frame.map { $0 - mean }
        let energy = centred.reduce(0) { $0 + $1 * $1 }
        guard (energy / Double(centred.count)).squareRoot() > 300 else { return nil }
        var bestLag = 0, bestValue = 0.0
        for lag in (sampleRate / 400)...(sampleRate / 60) {
            var value = 0.0
            for index in 0..<(centred.count - lag) { value += centred[index] * centred[index + lag] }
            if value > bestValue { bestValue = value; bestLag = lag }
        }
        guard bestLag > 0, bestValue > 0.3 * energy else { return nil }
        return Double(sampleRate) / Double(bestLag)
    }
}
