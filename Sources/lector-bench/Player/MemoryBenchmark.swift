import ArgumentParser
import Foundation
import LectorCore
import LectorTestKit

/// The daemon's resident memory where issue 23 sets its goals: idle after one `lector say`, and
/// with a generated EPUB of 1.6 MB of prose (the player bench's book) open and paused, each split
/// by where it lives (the program's code, its other mappings, shared libraries, anonymous memory),
/// so that a change of code layout and a change of heap show apart. `--before` runs an older
/// build the same way, first, in a session of its own; the idle figure of the one build is the
/// other's anchor.
struct Memory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "The daemon's RSS idle after a say and with an EPUB of 1.6 MB of prose paused, by mapping (issue 23).",
        discussion: """
            Each build runs in a private session: `lector serve`, `lector say -w TEXT`, --settle
            seconds, then VmRSS and /proc/PID/smaps; then `lector read` of the generated EPUB (120
            chapters, about 1.6 MB of prose), --settle seconds of narration, `playerctl pause`,
            --settle seconds, and the same again. Goals: ≤ 15 MB idle, ≤ 30 MB with the book paused.

            Example:
              lector-bench memory --before /tmp/old/lector
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Seconds to wait before each sample.") var settle: Double = 3
    @Option(help: "An older lector executable (its lectord beside it) run the same way, first.") var before: String?

    func validate() throws {
        guard settle >= 0.5 else { throw ValidationError("--settle must be at least 0.5 s") }
    }

    func run() throws {
        let log = Log(tag: "memory")
        let lector = try common.lectorPath(log)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-memory-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let books = try BookGenerator.generate(into: directory, chapters: 120, bytesPerChapter: 13_500)
        log(String(format: "generated %d chapters, %.2f MB of prose (EPUB %.2f MB)", books.chapters,
                   Double(books.proseBytes) / 1e6, Double(books.epubFileBytes) / 1e6))

        var results: [(String, MemoryBenchRecord)] = []
        if let before { results.append(("before", try measure(before, book: books.epub, log: log))) }
        results.append(("this build", try measure(lector, book: books.epub, log: log)))

        var report = BenchReport()
        var table = TextTable("lectord's RSS, MiB (/proc/PID/status and smaps)", columns: results.map(\.0),
                              labelWidth: 44, columnWidth: 12)
        func rows(_ title: String, goal: String, _ sample: (MemoryBenchRecord) -> MappingSplit) {
            table.row("\(title) (goal \(goal))", results.map { String(format: "%.1f", sample($0.1).rss) })
            table.row("  the program's code", results.map { String(format: "%.1f", sample($0.1).code) })
            table.row("  the program's data and tables", results.map { String(format: "%.1f", sample($0.1).programData) })
            table.row("  shared libraries, other files", results.map { String(format: "%.1f", sample($0.1).libraries) })
            table.row("  anonymous (heap, stacks)", results.map { String(format: "%.1f", sample($0.1).anonymous) })
        }
        rows("idle after a say", goal: "≤ 15") { $0.idle }
        rows("an EPUB of 1.6 MB of prose, paused", goal: "≤ 30") { $0.paused }
        table.row("peak (VmHWM)", results.map { String(format: "%.1f", $0.1.peak) })
        report.table(table)
        for (_, record) in results { report.record(record) }
        report.print()
    }

    private func measure(_ lector: String, book: URL, log: Log) throws -> MemoryBenchRecord {
        log("measuring \(lector)")
        let session = try BenchSession.start(log: log)
        defer { session.shutdown() }
        let daemon = try session.spawn(lector, ["serve"])
        try session.waitForBusName(BusNames.service, timeout: 15)
        let said = try session.run(lector, ["say", "-w", "Payment received: thirty five euros twenty."], timeout: 30)
        guard said.status == 0 else { throw BenchError("lector say failed: \(said)") }
        Thread.sleep(forTimeInterval: settle)
        guard let idle = MappingSplit.read(daemon.pid) else { throw BenchError("no /proc entry for the daemon") }

        let read = try session.run(lector, ["read", book.path], timeout: 60)
        guard read.status == 0 else { throw BenchError("lector read failed: \(read)") }
        Thread.sleep(forTimeInterval: settle)
        _ = try session.run("playerctl", ["-p", "lector", "pause"])
        Thread.sleep(forTimeInterval: settle)
        guard let paused = MappingSplit.read(daemon.pid), daemon.isRunning else {
            throw BenchError("the daemon ended:\n\(daemon.output)")
        }
        let peak = Double(ProcessProbe.peakResidentKiB(daemon.pid) ?? 0) / 1024
        log(String(format: "idle %.1f MiB, paused %.1f MiB, peak %.1f MiB", idle.rss, paused.rss, peak))
        return MemoryBenchRecord(lector: lector, idle: idle, paused: paused, peak: peak)
    }
}

/// A process's resident memory by mapping, MiB, from /proc/PID/smaps: the executable's
/// executable mapping, its other mappings (read-only data, relocation and symbol tables,
/// writable data), every other file (shared libraries, locale data), and anonymous memory.
struct MappingSplit: Encodable {
    let rss: Double
    let code: Double
    let programData: Double
    let libraries: Double
    let anonymous: Double

    static func read(_ pid: Int32) -> MappingSplit? {
        guard let rss = ProcessProbe.residentKiB(pid),
              let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"),
              // Read to the end: procfs reports a size of 0, and a read by size stops early.
              let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps"),
              let smaps = String(data: handle.readDataToEndOfFile(), encoding: .utf8) else { return nil }
        var code = 0, data = 0, libraries = 0, anonymous = 0
        var path = "", executable = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
                // "start-end perms offset dev inode [path]"
                executable = fields[1].contains("x")
                path = fields.count >= 6 ? fields[5...].joined(separator: " ") : ""
            } else if fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                if path == program { if executable { code += kib } else { data += kib } }
                else if path.hasPrefix("/") { libraries += kib }
                else { anonymous += kib }
            }
        }
        func mib(_ kib: Int) -> Double { Double(kib) / 1024 }
        return MappingSplit(rss: mib(rss), code: mib(code), programData: mib(data), libraries: mib(libraries),
                            anonymous: mib(anonymous))
    }
}

struct MemoryBenchRecord: Encodable {
    var metric = "memory"
    var build = Build.name
    let lector: String
    let idle: MappingSplit
    let paused: MappingSplit
    let peak: Double
}
