import ArgumentParser
import Foundation
import LectorInterface
import LectorTestKit
#if canImport(Glibc)
import Glibc
#endif

/// Issue 14's figures: the read-along page in headless chromium against the daemon narrating a
/// generated book with one long chapter, and the view server's own cost.
struct ReadAlong: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-along",
        abstract: "Measure the read-along page: highlight lag, a long chapter's rendering and scrolling, the server's cost.",
        discussion: """
            Highlight lag: SpeakingRange received on the bus (by the view server, stamped) → the page's next animation frame after the highlight was set (requestAnimationFrame in headless chromium; both on the wall clock), p50/p95 over the words of --seconds of narration. Anchor: the page's own frame interval in the same run.
            Rendering: the chapter fetched and drawn (fetch + markup + first frame), and render alone (markup parsed into the page and laid out), for a chapter of --words words.
            Scrolling: frames drawn while the page scrolls 4 px a frame and narration highlights words.
            Cost: the view server's VmRSS and wakeups/s (context switches of all its threads, /proc/PID/task/*/status) idle with no page, while a page follows narration, side by side with the daemon's own.
            """)

    @OptionGroup var common: CommonOptions
    @Option(help: "Words in the long chapter.") var words = 20_000
    @Option(help: "Seconds of narration to follow.") var seconds = 20.0
    @Option(help: "Seconds per idle window.") var idleSeconds = 10.0

    func run() throws {
        let log = Log(tag: "read-along")
        let lector = try common.lectorPath(log)
        let session = try BenchSession.start(sinks: ["lector_bench"], log: log)
        defer { session.shutdown() }
        var report = BenchReport()
        do {
            try measure(session: session, lector: lector, log: log, report: &report)
        } catch {
            log("benchmark failed: \(error)\n\(session.diagnostics)")
            throw ExitCode(1)
        }
        report.print()
    }

    private func measure(session: TestSession, lector: String, log: Log, report: inout BenchReport) throws {
        let directory = session.directory.appendingPathComponent("books", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // About six bytes a word in the generated prose; chapter 1 is the long one.
        let books = try BookGenerator.generate(into: directory, chapters: 2, bytesPerChapter: words * 6)
        let daemon = try session.spawn(lector, ["serve"])
        try session.waitForBusName(MPRISNames.service, timeout: 15)
        let client = try BusClient()
        try client.open(books.epub, options: ["from-start": true])

        let server = try session.spawn(lector, ["view", "--no-browser", "--idle-exit", "600"])
        var address: String?
        _ = poll(timeout: 15) {
            address = server.standardOutput.split(separator: "\n").first.map(String.init)
            return address != nil
        }
        guard let url = address else { throw BenchError("lector view printed no address: \(server.output)") }
        usleep(500_000)
        let idle = Sample.over(idleSeconds, pids: [server.pid, daemon.pid])
        log(String(format: "view server, no page: %.1f wakeups/s, %d kB", idle.wakeups(server.pid), idle.rssKB(server.pid)))

        let browser = try HeadlessBrowser(session: session)
        defer { browser.close() }
        try browser.open(url)
        try browser.waitFor("window.lectorView.view.chapter === 0 && window.lectorView.metrics.rendered.length > 0 "
                            + "&& window.lectorView.metrics.rendered[0].painted", timeout: 60)
        let spans = try browser.eval("window.lectorView.view.spans.length") as? Int ?? 0
        let fetched = try browser.eval("window.lectorView.metrics.rendered[0].painted") as? Double
        let renderOnly = try (0..<5).compactMap { _ in
            try browser.eval("""
                (() => { const t0 = performance.now(); const t = document.createElement('template');
                  t.innerHTML = window.lectorView.view.html; const a = document.createElement('article');
                  a.id = 'bench-copy'; a.append(t.content); document.getElementById('page').append(a);
                  a.getBoundingClientRect(); const n = a.querySelectorAll('span[data-o]').length;
                  const t1 = performance.now(); a.remove(); return n > 0 ? t1 - t0 : -1; })()
                """) as? Double
        }
        let chapterWords = try browser.eval("window.lectorView.view.article.textContent.split(/\\s+/).filter(Boolean).length") as? Int ?? 0

        // Following narration: the page's lag, both processes' cost.
        _ = try browser.eval("window.lectorView.metrics.ranges.length = 0")
        let following = Sample.over(seconds, pids: [server.pid, daemon.pid])
        let ranges = try browser.eval("window.lectorView.metrics.ranges.map((r) => [r.painted - r.signal, r.painted - r.arrived])") as? [[Double]] ?? []
        let lag = Summary(ranges.compactMap { $0.first }), inPage = Summary(ranges.compactMap { $0.last })
        let frames = try browser.eval("""
            new Promise((done) => { const t = []; const step = (now) => { t.push(now);
              if (t.length < 120) requestAnimationFrame(step); else done(t.slice(1).map((x, i) => x - t[i])); };
              requestAnimationFrame(step); })
            """) as? [Double] ?? []
        let scroll = try browser.eval("""
            new Promise((done) => { const t = []; const step = (now) => { t.push(now); window.scrollBy(0, 4);
              if (t.length < 180) requestAnimationFrame(step); else done(t.slice(1).map((x, i) => x - t[i])); };
              requestAnimationFrame(step); })
            """) as? [Double] ?? []
        browser.close()
        try client.player("Pause")
        usleep(1_000_000)
        let after = Sample.over(idleSeconds, pids: [server.pid, daemon.pid])

        report.text("read-along page (\(Build.name) build, headless chromium; \(chapterWords) words, \(spans) spoken runs in the chapter)")
        var table = TextTable("", columns: ["p50", "p95", "count"])
        table.row("highlight lag: signal on the bus -> painted", [ms(lag.median), ms(Percentile.of(lag.samples, 0.95)), String(lag.count)],
                  note: "goal p95 <= 16 ms")
        table.row("  of which in the page: event -> painted", [ms(inPage.median), ms(Percentile.of(inPage.samples, 0.95)), String(inPage.count)])
        let frame = Summary(frames)
        table.row("anchor: the page's frame interval", [ms(frame.median), ms(Percentile.of(frame.samples, 0.95)), String(frame.count)])
        let scrolled = Summary(scroll)
        table.row("frame interval scrolling while highlighting", [ms(scrolled.median), ms(Percentile.of(scrolled.samples, 0.95)), String(scrolled.count)],
                  note: String(format: "%.0f fps", scrolled.median.map { 1000 / $0 } ?? 0))
        table.row("chapter fetched and drawn (first frame)", [ms(fetched), "-", "1"], note: "goal <= 300 ms")
        let render = Summary(renderOnly.filter { $0 >= 0 })
        table.row("chapter markup parsed and laid out", [ms(render.median), ms(render.max), String(render.count)])
        report.table(table)
        report.text()
        var cost = TextTable("", columns: ["view srv", "daemon"], columnWidth: 12)
        cost.row("narrating, no page open: wakeups/s", [rate(idle.wakeups(server.pid)), rate(idle.wakeups(daemon.pid))],
                 note: "view server goal 0")
        cost.row("a page following narration: wakeups/s", [rate(following.wakeups(server.pid)), rate(following.wakeups(daemon.pid))])
        cost.row("a page following: CPU s per minute", [cpu(following.cpuPerMinute(server.pid)), cpu(following.cpuPerMinute(daemon.pid))])
        cost.row("paused, page closed: wakeups/s", [rate(after.wakeups(server.pid)), rate(after.wakeups(daemon.pid))], note: "goal 0")
        cost.row("RSS no page (kB)", [String(idle.rssKB(server.pid)), String(idle.rssKB(daemon.pid))], note: "goal view server <= 30 MB")
        cost.row("  of it proportional (Pss, kB)", [String(idle.pssKB(server.pid)), String(idle.pssKB(daemon.pid))])
        cost.row("RSS following (kB)", [String(following.rssKB(server.pid)), String(following.rssKB(daemon.pid))])
        report.table(cost)
        report.record(SeriesRecord(metric: "read_along", label: "highlight lag", lag))
        report.record(SeriesRecord(metric: "read_along", label: "chapter render", render))
    }

    private func ms(_ value: Double?) -> String { value.map { String(format: "%.1fms", $0) } ?? "-" }
    private func rate(_ value: Double) -> String { String(format: "%.1f", value) }
    private func cpu(_ value: Double) -> String { String(format: "%.2f s", value) }
}

/// Counters of some processes at the start and end of a window. Context switches are summed
/// per thread over the threads alive at both ends (a thread that exits takes its count with it).
private struct Sample {
    let seconds: Double
    let before: [Int32: [String: (switches: Int, ticks: Int)]]
    let after: [Int32: [String: (switches: Int, ticks: Int)]]
    let memory: [Int32: (rss: Int, pss: Int)]

    static func over(_ seconds: Double, pids: [Int32]) -> Sample {
        let before = Dictionary(uniqueKeysWithValues: pids.map { ($0, threads($0)) })
        usleep(UInt32(seconds * 1_000_000))
        let after = Dictionary(uniqueKeysWithValues: pids.map { ($0, threads($0)) })
        let memory = Dictionary(uniqueKeysWithValues: pids.map { ($0, rollup($0)) })
        return Sample(seconds: seconds, before: before, after: after, memory: memory)
    }

    /// Per thread: voluntary + involuntary context switches, and utime + stime ticks.
    static func threads(_ pid: Int32) -> [String: (switches: Int, ticks: Int)] {
        var result: [String: (switches: Int, ticks: Int)] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let base = "/proc/\(pid)/task/\(task)"
            guard let status = try? String(contentsOfFile: base + "/status", encoding: .utf8),
                  let stat = try? String(contentsOfFile: base + "/stat", encoding: .utf8),
                  let closing = stat.lastIndex(of: ")") else { continue }
            let switches = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
            let fields = stat[stat.index(after: closing)...].split(separator: " ")
            let ticks = fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
            result[task] = (switches, ticks)
        }
        return result
    }

    /// VmRSS and Pss (kB) from /proc/PID/smaps_rollup: Pss shares pages with the processes that
    /// map them too (the daemon runs the same binary).
    static func rollup(_ pid: Int32) -> (rss: Int, pss: Int) {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return (0, 0) }
        func value(_ key: String) -> Int {
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) } ?? 0
        }
        return (value("Rss"), value("Pss"))
    }

    private func delta(_ pid: Int32, _ pick: ((switches: Int, ticks: Int)) -> Int) -> Double {
        guard let a = before[pid], let b = after[pid] else { return .nan }
        return Double(b.reduce(0) { sum, entry in sum + (a[entry.key].map { pick(entry.value) - pick($0) } ?? pick(entry.value)) })
    }

    func wakeups(_ pid: Int32) -> Double { delta(pid) { $0.switches } / seconds }

    func cpuPerMinute(_ pid: Int32) -> Double {
        delta(pid) { $0.ticks } / Double(ProcessCounters.ticksPerSecond) / seconds * 60
    }

    func rssKB(_ pid: Int32) -> Int { memory[pid]?.rss ?? 0 }
    func pssKB(_ pid: Int32) -> Int { memory[pid]?.pss ?? 0 }
}
