import Foundation

/// Records a null sink's monitor so tests can ask "when did sound start / stop, and for how long".
/// parec's raw s16le mono stream is read on a background thread; each chunk is stamped with its
/// wall-clock arrival, and sample i of a chunk is dated arrival - (samples after i in the chunk) / rate.
/// With `--latency-msec=5` chunks are small, so timestamps are good to a few milliseconds
/// (plus whatever latency the sink itself adds, which is the same for every measurement).
/// Its reader thread keeps it alive until parec ends: `stop()` or the session's `shutdown()` ends it.
public final class MonitorRecording: @unchecked Sendable {
    public static let sampleRate = 22050
    private static let bytesPerSample = 2

    public let sink: String
    private let process: ManagedProcess
    private let lock = NSLock()
    private var samples: [Int16] = []
    /// chunkEnds[k] is the exclusive end index of chunk k in `samples`; chunkArrivals[k] its arrival time.
    private var chunkEnds: [Int] = []
    private var chunkArrivals: [Date] = []
    private var leftoverByte: UInt8?
    private var streamEnded = false

    init(sink: String, process: ManagedProcess) {
        self.sink = sink
        self.process = process
        samples.reserveCapacity(Self.sampleRate * 60)
        let thread = Thread { [self] in readUntilEndOfStream() }
        thread.name = "MonitorRecording(\(sink))"
        thread.start()
    }

    /// Blocks until the first samples arrive, so "after: Date()" taken afterwards is covered.
    func waitForFirstSamples(timeout: TimeInterval) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let (count, ended) = lock.withLock { (samples.count, streamEnded) }
            if count > 0 { return }
            if ended { break }
            usleep(2_000)
        }
        process.terminate(grace: 1)
        throw TestKitError.timedOut("no audio from \(sink).monitor within \(timeout) s; parec said:\n\(process.output)")
    }

    /// Time of the first recorded sample.
    public var startedAt: Date {
        lock.withLock { chunkArrivals.isEmpty ? Date.distantPast : timeOfSample(0) }
    }

    /// Seconds of audio recorded so far.
    public var recordedDuration: TimeInterval {
        lock.withLock { Double(samples.count) / Double(Self.sampleRate) }
    }

    /// False once parec has gone (stopped, or the sound server went away).
    public var isRecording: Bool { lock.withLock { !streamEnded } }

    /// First instant at or after `after` where |sample| exceeds `threshold`, or nil.
    public func firstSound(after: Date, threshold: Int16 = 500) -> Date? {
        lock.withLock {
            let start = firstIndex(atOrAfter: after)
            guard let index = firstLoudIndex(from: start, threshold: threshold) else { return nil }
            return timeOfSample(index)
        }
    }

    /// Blocks (polling its own buffer every 5 ms) until sound is seen after `after`; its time, or nil on timeout.
    public func waitForSound(after: Date, timeout: TimeInterval = 5, threshold: Int16 = 500) -> Date? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var scanned = -1
        while true {
            let (found, ended): (Date?, Bool) = lock.withLock {
                if scanned < 0 { scanned = firstIndex(atOrAfter: after) }
                // `after` may still be in the future: samples recorded before it do not count.
                while let index = firstLoudIndex(from: scanned, threshold: threshold) {
                    if timeOfSample(index) >= after { return (timeOfSample(index), streamEnded) }
                    scanned = index + 1
                }
                scanned = max(scanned, samples.count)
                return (nil, streamEnded)
            }
            if let found { return found }
            if ended || Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// For claims that nothing is heard ("not read aloud while off"): watches from `after` until
    /// `after + duration` and is false the moment a sound appears, so a failure shows at once and a
    /// pass has watched the whole window rather than slept through it.
    ///
    /// ```swift
    /// XCTAssertTrue(recording.staysSilent(after: sent, for: 1.5), "read aloud although off")
    /// ```
    public func staysSilent(after: Date, for duration: TimeInterval, threshold: Int16 = 500) -> Bool {
        let end = after.addingTimeInterval(duration)
        return waitForSound(after: after, timeout: max(0, end.timeIntervalSinceNow), threshold: threshold)
            .map { $0 > end } ?? true
    }

    /// Blocks until the newest `quiet` seconds of recorded samples are all at or below `threshold`.
    /// Returns immediately if that is already so (including when nothing has played yet); false on timeout.
    public func waitForSilence(quiet: TimeInterval = 0.3, timeout: TimeInterval = 10, threshold: Int16 = 500) -> Bool {
        let quietSamples = Int(quiet * Double(Self.sampleRate))
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let (isQuiet, ended): (Bool, Bool) = lock.withLock {
                guard samples.count >= quietSamples else { return (false, streamEnded) }
                let tail = samples[(samples.count - quietSamples)...]
                return (!tail.contains { Self.isLoud($0, threshold) }, streamEnded)
            }
            if isQuiet { return true }
            if ended || Date() >= deadline { return false }
            usleep(5_000)
        }
    }

    /// Roughly how long sound was present after `after`: the number of 10 ms windows holding
    /// a sample above `threshold`, times the window length. Gaps between words do not count.
    public func soundDuration(after: Date, threshold: Int16 = 500) -> TimeInterval {
        let window = Self.sampleRate / 100
        return lock.withLock {
            var loudWindows = 0
            var windowStart = firstIndex(atOrAfter: after)
            while windowStart < samples.count {
                let windowEnd = min(windowStart + window, samples.count)
                if samples[windowStart..<windowEnd].contains(where: { Self.isLoud($0, threshold) }) {
                    loudWindows += 1
                }
                windowStart = windowEnd
            }
            return Double(loudWindows * window) / Double(Self.sampleRate)
        }
    }

    /// The last instant with sound after `after`, or nil if there was none.
    public func lastSound(after: Date, threshold: Int16 = 500) -> Date? {
        lock.withLock {
            let start = firstIndex(atOrAfter: after)
            var index = samples.count - 1
            while index >= start {
                if Self.isLoud(samples[index], threshold) { return timeOfSample(index) }
                index -= 1
            }
            return nil
        }
    }

    /// Largest |sample| after `after` (0 if silent), e.g. to compare volumes.
    public func peakAmplitude(after: Date) -> Int {
        lock.withLock {
            let start = firstIndex(atOrAfter: after)
            return samples[start...].reduce(0) { max($0, abs(Int($1))) }
        }
    }

    /// Largest |sample| between `start` and `end` (0 if silent or not recorded yet), e.g. to
    /// show a fade: the peak of a late window far below an early one's.
    public func peakAmplitude(from start: Date, to end: Date) -> Int {
        lock.withLock {
            let first = firstIndex(atOrAfter: start)
            let last = firstIndex(atOrAfter: end)
            guard first < last else { return 0 }
            return samples[first..<last].reduce(0) { max($0, abs(Int($1))) }
        }
    }

    /// Where sound begins after at least `gap` seconds of silence in [start, end): the onsets of
    /// words after a pause, against which SpeakingRange is dated.
    public func onsets(from start: Date, to end: Date, afterSilence gap: TimeInterval, threshold: Int16 = 500) -> [Date] {
        lock.withLock {
            let first = firstIndex(atOrAfter: start), last = firstIndex(atOrAfter: end)
            let quiet = Int(gap * Double(Self.sampleRate))
            var onsets: [Date] = []
            var lastLoud: Int?
            var index = first
            while index < last {
                if Self.isLoud(samples[index], threshold) {
                    if lastLoud.map({ index - $0 > quiet }) ?? false { onsets.append(timeOfSample(index)) }
                    lastLoud = index
                }
                index += 1
            }
            return onsets
        }
    }

    /// The quiet stretches of at least `atLeast` seconds between the first and the last sound in
    /// [start, end): the pauses a listener hears (between words, sentences, and any gap).
    public func silences(from start: Date, to end: Date, atLeast: TimeInterval = 0.05, threshold: Int16 = 500) -> [TimeInterval] {
        lock.withLock {
            let first = firstIndex(atOrAfter: start), last = firstIndex(atOrAfter: end)
            guard first < last else { return [] }
            return Self.silences(in: samples[first..<last], rate: Self.sampleRate, atLeast: atLeast, threshold: threshold)
        }
    }

    /// The quiet stretches of at least `atLeast` seconds between the first and last loud sample
    /// of `samples` (recorded or synthesized, at `rate`).
    public static func silences<Samples: Collection<Int16>>(in samples: Samples, rate: Int, atLeast: TimeInterval = 0.05,
                                                            threshold: Int16 = 500) -> [TimeInterval] {
        var result: [TimeInterval] = []
        var lastLoud: Int?
        for (index, sample) in samples.enumerated() where isLoud(sample, threshold) {
            if let lastLoud, index - lastLoud > 1 {
                let quiet = Double(index - lastLoud - 1) / Double(rate)
                if quiet >= atLeast { result.append(quiet) }
            }
            lastLoud = index
        }
        return result
    }

    /// Writes everything recorded so far as a WAV file, to listen to when a test fails.
    public func writeWAV(to url: URL) throws {
        let pcm: [Int16] = lock.withLock { samples }
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let byteCount = UInt32(pcm.count * Self.bytesPerSample)
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36) + byteCount)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
        append(UInt32(Self.sampleRate)); append(UInt32(Self.sampleRate * Self.bytesPerSample))
        append(UInt16(Self.bytesPerSample)); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(byteCount)
        pcm.forEach { append($0) }
        try data.write(to: url)
    }

    /// The session terminates all its processes together at shutdown.
    var processForShutdown: ManagedProcess { process }

    /// Stops parec; what was recorded stays queryable.
    public func stop() {
        process.terminate(grace: 1)
    }

    // MARK: - Reading

    private func readUntilEndOfStream() {
        let descriptor = process.pipeReadDescriptor
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            append(buffer[0..<count], arrivedAt: Date())
        }
        close(descriptor)
        lock.withLock { streamEnded = true }
    }

    private func append(_ bytes: ArraySlice<UInt8>, arrivedAt arrival: Date) {
        lock.withLock {
            var bytes = Array(bytes)
            if let leftover = leftoverByte {
                bytes.insert(leftover, at: 0)
                leftoverByte = nil
            }
            if bytes.count % Self.bytesPerSample == 1 { leftoverByte = bytes.removeLast() }
            guard !bytes.isEmpty else { return }
            var index = 0
            while index < bytes.count {
                samples.append(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
                index += 2
            }
            chunkEnds.append(samples.count)
            chunkArrivals.append(arrival)
        }
    }

    // MARK: - Time ↔ index (call with the lock held)

    private func timeOfSample(_ index: Int) -> Date {
        var low = 0, high = chunkEnds.count - 1
        while low < high {  // first chunk whose end is past index
            let middle = (low + high) / 2
            if chunkEnds[middle] > index { high = middle } else { low = middle + 1 }
        }
        let samplesAfter = chunkEnds[low] - 1 - index
        return chunkArrivals[low].addingTimeInterval(-Double(samplesAfter) / Double(Self.sampleRate))
    }

    private func firstIndex(atOrAfter date: Date) -> Int {
        var low = 0, high = chunkArrivals.count
        while low < high {  // first chunk whose last sample is at or after date
            let middle = (low + high) / 2
            if chunkArrivals[middle] >= date { high = middle } else { low = middle + 1 }
        }
        guard low < chunkArrivals.count else { return samples.count }
        let chunkStart = low == 0 ? 0 : chunkEnds[low - 1]
        let samplesBefore = Int((chunkArrivals[low].timeIntervalSince(date) * Double(Self.sampleRate)).rounded(.down))
        return max(chunkStart, chunkEnds[low] - 1 - samplesBefore)
    }

    private func firstLoudIndex(from start: Int, threshold: Int16) -> Int? {
        guard start < samples.count else { return nil }
        return samples[start...].firstIndex { Self.isLoud($0, threshold) }
    }

    private static func isLoud(_ sample: Int16, _ threshold: Int16) -> Bool {
        abs(Int32(sample)) > Int32(threshold)
    }
}
