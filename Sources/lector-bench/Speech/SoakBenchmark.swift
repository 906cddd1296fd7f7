import ArgumentParser
import Foundation
import LectorCore
import LectorTestKit

/// An hour (or MINUTES) of narration at rate 2.5 in a private session, sampled every interval:
/// the daemon's RSS, descriptors, threads and wakeups, and how far SpeakingRange falls from the
/// sound it names (words after a pause, matched to their onsets at the sink's monitor). What
/// stays flat over a long listen: RSS after the first chapter, descriptors, threads, the offset.
struct Soak: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Narrate a long book at rate 2.5 for MINUTES and watch what must stay flat (issue 23).",
        discussion: """
            Not part of CI. Each sample row: minute, RSS, descriptors, threads, wakeups/s over the
            interval and the median SpeakingRange-minus-onset offset in it.

            Example:
              lector-bench soak 60 --interval 60
            """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "Minutes to narrate.") var minutes: Double = 10
    @Option(help: "Seconds between samples.") var interval: Double = 60
    @Option(help: "Narration speed.") var rate: Double = 2.5

    func validate() throws {
        guard minutes > 0, interval >= 5 else { throw ValidationError("minutes > 0 and an interval of at least 5 s") }
    }

    func run() throws {
        let log = Log(tag: "soak")
        let lector = try common.lectorPath(log)
        let session = try BenchSession.start(log: log)
        defer { session.shutdown() }
        // Enough book for the whole run at the rate (about 1,000 characters a minute at 1.0).
        let bytes = Int(minutes * 1_000 * rate * 1.5)
        let books = try BookGenerator.generate(into: session.directory, chapters: max(4, Int(minutes / 5)),
                                               bytesPerChapter: max(20_000, bytes / max(4, Int(minutes / 5))))
        let recording = try session.record()
        let daemon = try session.spawn(lector, ["serve"])
        try session.waitForBusName(BusNames.service, timeout: 15)
        let recorder = try SignalRecorder(rules: ["type='signal',interface='\(MPRISNames.narrator)',member='SpeakingRange'"])
        defer { recorder.stop() }
        let read = try session.run(lector, ["read", books.epub.path, "--from-start", "--rate", String(rate)])
        guard read.status == 0 else { throw BenchError("lector read failed: \(read)") }
        guard recording.waitForSound(after: Date().addingTimeInterval(-1), timeout: 10) != nil else {
            throw BenchError("nothing heard:\n\(daemon.output)")
        }
        log(String(format: "narrating %@ (%d chapters, %d kB of prose) at rate %.1f for %.0f min",
                   books.epub.lastPathComponent, books.chapters, books.proseBytes / 1000, rate, minutes))
        var table = TextTable("soak: lector serve narrating at rate \(rate)",
                              columns: ["RSS MB", "fds", "threads", "wakeups/s", "offset ms", "matched", "words"], labelWidth: 10, columnWidth: 11)
        var report = BenchReport()
        let started = Date()
        var before = ProcessCounters.read(pid: daemon.pid)
        var seen = recorder.count
        while Date().timeIntervalSince(started) < minutes * 60 {
            let windowStart = Date()
            Thread.sleep(forTimeInterval: min(interval, minutes * 60 - Date().timeIntervalSince(started)))
            guard daemon.isRunning else { throw BenchError("the daemon ended:\n\(daemon.output)") }
            let now = ProcessCounters.read(pid: daemon.pid)
            let elapsed = Date().timeIntervalSince(windowStart)
            let ranges = recorder.signals(from: seen).filter { $0.member == "SpeakingRange" }.map(\.receivedAt)
            seen = recorder.count
            // At rate 2.5 espeak-ng leaves no pause of 80 ms (none at all in 20-s windows): onsets after 30 ms of
            // silence, each matched to a SpeakingRange within 40 ms (the median follows the words).
            let onsets = recording.onsets(from: windowStart, to: Date(), afterSilence: 0.03)
            let offsets = ranges.compactMap { range -> Double? in
                guard let nearest = onsets.min(by: { abs($0.timeIntervalSince(range)) < abs($1.timeIntervalSince(range)) }),
                      abs(nearest.timeIntervalSince(range)) < 0.04 else { return nil }
                return range.timeIntervalSince(nearest) * 1000
            }.sorted()
            let sample = SoakRecord(minute: Date().timeIntervalSince(started) / 60,
                                    rssMB: ProcessProbe.residentKiB(daemon.pid).map { Double($0) / 1024 },
                                    descriptors: (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd"))?.count,
                                    threads: now?.threads,
                                    wakeupsPerS: zip(before, now).map { Double($1.contextSwitches - $0.contextSwitches) / elapsed },
                                    offsetMs: offsets.isEmpty ? nil : offsets[offsets.count / 2], matched: offsets.count)
            before = now
            table.row(String(format: "%.1f min", sample.minute), [
                sample.rssMB.map { String(format: "%.1f", $0) } ?? "-", sample.descriptors.map(String.init) ?? "-",
                sample.threads.map(String.init) ?? "-", sample.wakeupsPerS.map { String(format: "%.1f", $0) } ?? "-",
                sample.offsetMs.map { String(format: "%+.1f", $0) } ?? "-", String(sample.matched), String(ranges.count),
            ])
            report.record(sample)
            log(String(format: "%.1f min: RSS %.1f MB, %d fds, %d threads", sample.minute, sample.rssMB ?? 0,
                       sample.descriptors ?? 0, sample.threads ?? 0))
        }
        report.table(table)
        report.print()
    }
}

struct SoakRecord: Encodable {
    var metric = "soak.sample"
    var build = Build.name
    let minute: Double
    let rssMB: Double?
    let descriptors: Int?
    let threads: Int?
    let wakeupsPerS: Double?
    let offsetMs: Double?
    let matched: Int
}

/// Both values, when there are both.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
