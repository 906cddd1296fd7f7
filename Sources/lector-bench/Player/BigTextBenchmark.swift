import ArgumentParser
import Foundation
import LectorCore
import LectorTestKit

/// A 48-MB plain-text book, opened in a private session: the daemon's peak RSS against the
/// file's size, its RSS while narrating and after a jump far into the book, and open → first
/// audio at the sink's monitor beside the same open of a small book in the same run (the
/// anchor). `--before` runs an older build the same way, in a session of its own.
struct BigText: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bigtext",
        abstract: "Open a large plain-text book and measure what it costs the daemon (issue 23).",
        discussion: """
            Memory that must not grow with the book: the peak (VmHWM) after opening it, against
            the file's size; the RSS after narrating for --seconds, and after `lector read
            --chapter` jumps to the middle of the book. Open → first audio at the sink, beside a
            small book (one chapter of the same prose) opened in the same daemon. Not part of CI.

            Example:
              lector-bench bigtext --megabytes 48 --before /tmp/old/lector
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Size of the generated book in MB.") var megabytes = 48
    @Option(help: "Seconds of narration before the steady sample.") var seconds: Double = 20
    @Option(help: "Opens of each book per build (first audio is the median).") var opens = 3
    @Option(help: "An older lector executable (its lectord beside it) run the same way, first.") var before: String?

    func validate() throws {
        guard megabytes >= 1, seconds >= 1, opens >= 1 else { throw ValidationError("--megabytes, --seconds and --opens must be positive") }
    }

    func run() throws {
        let log = Log(tag: "bigtext")
        let lector = try common.lectorPath(log)
        let books = FileManager.default.temporaryDirectory.appendingPathComponent("lector-bigtext-\(getpid())")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: books) }
        let big = books.appendingPathComponent("long-road.txt")
        let small = books.appendingPathComponent("one-chapter.txt")
        let chapters = try Self.writeBooks(big: big, small: small, bytes: megabytes * 1_000_000)
        let size = Double((try FileManager.default.attributesOfItem(atPath: big.path)[.size] as? Int) ?? 0) / 1_048_576
        log(String(format: "%@: %.1f MiB, %d chapters, hard-wrapped at 72 columns", big.lastPathComponent, size, chapters))

        var results: [(String, BigTextRecord)] = []
        if let before { results.append(("before", try measure(before, big: big, small: small, chapters: chapters, size: size, log: log))) }
        results.append(("this build", try measure(lector, big: big, small: small, chapters: chapters, size: size, log: log)))

        var report = BenchReport()
        var table = TextTable(String(format: "bigtext: a %.1f-MiB plain text (%d chapters)", size, chapters),
                              columns: results.map(\.0), labelWidth: 40, columnWidth: 14)
        func row(_ label: String, _ value: (BigTextRecord) -> String) { table.row(label, results.map { value($0.1) }) }
        row("open small → first audio (anchor), ms") { String(format: "%.0f", $0.smallFirstAudioMs) }
        row("open big → first audio, ms") { String(format: "%.0f", $0.bigFirstAudioMs) }
        row("  × the small book's") { String(format: "%.2f", $0.bigFirstAudioMs / $0.smallFirstAudioMs) }
        row("peak RSS (VmHWM), MiB") { String(format: "%.1f", $0.peakMB) }
        row("  × the file (goal ≤ 3)") { String(format: "%.2f", $0.peakMB / size) }
        row("RSS narrating, MiB (goal ≤ 60)") { String(format: "%.1f", $0.steadyMB) }
        row("RSS after a jump to the middle, MiB") { String(format: "%.1f", $0.afterJumpMB) }
        row("jump → first audio, ms") { String(format: "%.0f", $0.jumpFirstAudioMs) }
        row("idle before the open, MiB") { String(format: "%.1f", $0.idleMB) }
        report.table(table)
        for (_, record) in results { report.record(record) }
        report.print()
    }

    private func measure(_ lector: String, big: URL, small: URL, chapters: Int, size: Double, log: Log) throws -> BigTextRecord {
        log("measuring \(lector)")
        let session = try BenchSession.start(log: log)
        defer { session.shutdown() }
        let recording = try session.record()
        let daemon = try session.spawn(lector, ["serve"])
        try session.waitForBusName(BusNames.service, timeout: 15)
        Thread.sleep(forTimeInterval: 1)
        let idle = Double(ProcessProbe.residentKiB(daemon.pid) ?? 0) / 1024

        func firstAudio(_ arguments: [String]) throws -> Double {
            guard recording.waitForSilence(quiet: 0.3, timeout: 10) else { throw BenchError("no silence before \(arguments)") }
            let started = Date()
            let read = try session.run(lector, arguments, timeout: 60)
            guard read.status == 0 else { throw BenchError("lector \(arguments.joined(separator: " ")) failed: \(read)") }
            guard let heard = recording.waitForSound(after: started, timeout: 20) else {
                throw BenchError("nothing heard after lector \(arguments.joined(separator: " ")):\n\(daemon.output)")
            }
            _ = try session.run("playerctl", ["-p", "lector", "pause"])
            return heard.timeIntervalSince(started) * 1000
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

        // Alternating, so each open replaces the other book (the book being read opened again
        // only plays on); the small one first, so a big one's open sets the peak.
        var smallTimes: [Double] = [], bigTimes: [Double] = []
        for _ in 0..<opens {
            smallTimes.append(try firstAudio(["read", small.path, "--from-start"]))
            bigTimes.append(try firstAudio(["read", big.path, "--from-start"]))
        }
        let peak = Double(ProcessProbe.peakResidentKiB(daemon.pid) ?? 0) / 1024
        _ = try session.run("playerctl", ["-p", "lector", "play"])
        Thread.sleep(forTimeInterval: seconds)
        let steady = Double(ProcessProbe.residentKiB(daemon.pid) ?? 0) / 1024
        let jump = try firstAudio(["read", big.path, "--chapter", String(chapters / 2)])
        _ = try session.run("playerctl", ["-p", "lector", "play"])
        Thread.sleep(forTimeInterval: min(seconds, 5))
        let afterJump = Double(ProcessProbe.residentKiB(daemon.pid) ?? 0) / 1024
        guard daemon.isRunning else { throw BenchError("the daemon ended:\n\(daemon.output)") }
        log(String(format: "peak %.1f MiB (%.2f× the file), narrating %.1f MiB, after the jump %.1f MiB",
                   peak, peak / size, steady, afterJump))
        return BigTextRecord(lector: lector, fileMB: size, idleMB: idle, smallFirstAudioMs: median(smallTimes),
                             bigFirstAudioMs: median(bigTimes), peakMB: peak, steadyMB: steady,
                             jumpFirstAudioMs: jump, afterJumpMB: afterJump)
    }

    /// Chapters of generated prose as a Project Gutenberg text has them: `CHAPTER N.` and a
    /// title line, paragraphs hard-wrapped at 72 columns with curly quotes and dashes, until
    /// the book has `bytes`; the small book is its first chapter. Returns the chapter count.
    static func writeBooks(big: URL, small: URL, bytes: Int) throws -> Int {
        var prose = ProseGenerator(seed: 0x1ec7_0b00_c0ff_ee11)
        guard FileManager.default.createFile(atPath: big.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: big) else { throw BenchError("cannot write \(big.path)") }
        defer { try? handle.close() }
        var written = 0, chapter = 0
        while written < bytes {
            chapter += 1
            var text = "CHAPTER \(chapter).\n\(prose.chapterTitle())\n\n"
            for _ in 0..<30 {
                text += wrapped("\u{201C}" + prose.paragraph() + "\u{201D} \u{2014} so it went.", width: 72) + "\n\n"
            }
            let data = Data(text.utf8)
            handle.write(data)
            if chapter == 1 { try data.write(to: small) }
            written += data.count
        }
        return chapter
    }

    static func wrapped(_ paragraph: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in paragraph.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

struct BigTextRecord: Encodable {
    var metric = "bigtext"
    var build = Build.name
    let lector: String
    let fileMB: Double
    let idleMB: Double
    let smallFirstAudioMs: Double
    let bigFirstAudioMs: Double
    let peakMB: Double
    let steadyMB: Double
    let jumpFirstAudioMs: Double
    let afterJumpMB: Double
}
