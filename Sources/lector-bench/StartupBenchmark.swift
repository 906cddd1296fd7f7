import ArgumentParser
import Foundation
import Glibc
import LectorSpawn
import LectorTestKit

/// `lector-bench startup`: what a CLI command costs before it does anything, `lector --version`
/// and `lector status` with no daemon (on a private bus) from spawn to exit, beside `busctl --version` (a small C program of systemd's, the anchor),
/// `lectord --version` and `lector-view --version`, and each program's size (issue 23: three
/// programs, each linking only what it runs). Runs are interleaved round by round, the order
/// rotated each round, so a machine that slows down slows every program alike.
struct Startup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start-up of lector --version (and lectord, lector-view) against busctl --version, and the programs' sizes.")

    @OptionGroup var common: CommonOptions
    @Option(help: "Timed runs of each program.") var runs = 50
    @Option(help: "Another lector executable (e.g. a build from before a change), measured in the same rounds.")
    var before: String?

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    struct Program {
        let label: String
        let path: String
        let arguments: [String]
        /// nil: the bench's own.
        var environment: [String: String]? = nil
    }

    struct Record: Encodable {
        let metric = "startup"
        let program: String
        let path: String
        let runs: Int
        let medianMs: Double?
        let p90Ms: Double?
        let minMs: Double?
        let fileBytes: Int?
        let textBytes: Int?
        let dataBytes: Int?
    }

    func run() throws {
        let log = Log(tag: "bench")
        let lector = try common.lectorPath(log)
        // A bus of its own with no daemon on it: status asks, hears nobody owns the name, says so.
        let session = try TestSession(sinks: [], startSoundServer: false)
        defer { session.shutdown() }
        var programs = [Program(label: "lector --version", path: lector, arguments: ["--version"]),
                        Program(label: "lector status (no daemon)", path: lector, arguments: ["status"],
                                environment: session.environment)]
        let directory = (lector as NSString).deletingLastPathComponent
        for name in ["lectord", "lector-view"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            programs.append(Program(label: "\(name) --version", path: "\(directory)/\(name)", arguments: ["--version"]))
        }
        if let before {
            programs.append(Program(label: "before: lector --version", path: before, arguments: ["--version"]))
            programs.append(Program(label: "before: lector status (no daemon)", path: before, arguments: ["status"],
                                    environment: session.environment))
        }
        guard let busctl = ["/usr/bin/busctl", "/bin/busctl"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            log("busctl is not installed (package systemd): it is the anchor of this benchmark")
            throw ExitCode(1)
        }
        programs.append(Program(label: "busctl --version", path: busctl, arguments: ["--version"]))

        // One untimed run each: page cache warm for all alike.
        for program in programs { _ = try Self.time(program) }
        var samples = Array(repeating: [Double](), count: programs.count)
        for round in 0..<runs {
            for offset in 0..<programs.count {
                let index = (round + offset) % programs.count
                samples[index].append(try Self.time(programs[index]))
            }
        }

        var report = BenchReport()
        report.text("lector-bench startup (\(Build.name) build): spawn to exit, \(runs) runs each, interleaved; "
            + "the anchor is busctl --version")
        var table = TextTable("program", columns: ["median", "p90", "min", "runs"], labelWidth: 30)
        for (program, series) in zip(programs, samples) {
            table.row(program.label, Summary(series), unit: .milliseconds)
        }
        report.table(table)
        report.text()
        var sizes = TextTable("program (size)", columns: ["file MB", "text MB", "data MB"], labelWidth: 30, columnWidth: 10)
        var records: [Record] = []
        var listed = Set<String>()
        for (program, series) in zip(programs, samples) {
            let size = Self.sizes(program.path)
            let megabytes = { (bytes: Int?) in bytes.map { String(format: "%.1f", Double($0) / 1_000_000) } ?? "-" }
            if listed.insert(program.path).inserted {
                sizes.row(program.path, [megabytes(size.file), megabytes(size.text), megabytes(size.data)])
            }
            let summary = Summary(series)
            records.append(Record(program: program.label, path: program.path, runs: summary.count, medianMs: figure(summary.median),
                                  p90Ms: figure(summary.p90), minMs: figure(summary.min), fileBytes: size.file,
                                  textBytes: size.text, dataBytes: size.data))
        }
        report.table(sizes)
        records.forEach { report.record($0) }
        report.print()
    }

    /// Milliseconds from posix_spawn to the exit of `program`, its output on /dev/null. A run
    /// that fails is an error: a figure of a program that did not start would mean nothing.
    static func time(_ program: Program) throws -> Double {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw ValidationError("cannot open /dev/null") }
        defer { close(null) }
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let pid = try Spawn.start(program.path, arguments: program.arguments, environment: program.environment ?? ProcessInfo.processInfo.environment,
                                  stdio: [null, null, null], detach: .processGroup)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        clock_gettime(CLOCK_MONOTONIC, &end)
        guard status == 0 else { throw ValidationError("\(program.path) \(program.arguments.joined(separator: " ")) failed (wait status \(status))") }
        return Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1_000_000
    }

    /// The file's size and `size`'s text and data (nil where binutils' size is missing).
    static func sizes(_ path: String) -> (file: Int?, text: Int?, data: Int?) {
        let file = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/size")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return (file, nil, nil) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // "   text	   data	    bss	    dec	    hex	filename", then the figures.
        let fields = String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().first?
            .split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Int($0) } ?? []
        return (file, fields.count >= 2 ? fields[0] : nil, fields.count >= 2 ? fields[1] : nil)
    }
}
