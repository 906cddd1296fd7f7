import Foundation
import LectorTestKit
import XCTest

/// Issue 5, "limits that protect the desktop": ten clients flood Speak with 1000 announcements
/// each while the test watches the daemon's memory, asks MPRIS GetAll, and an eleventh client
/// sends one `important` announcement that must still be heard.
final class FloodTests: XCTestCase {
    private static let clients = 10
    private static let messagesPerClient = 1000
    /// Calls each flooder keeps in flight (bounded: the bus limits pending replies per connection;
    /// 10 x 32 still keeps the daemon busy all the time).
    private static let window = 32
    /// Documented limits (dbus/io.github.lector.Lector1.xml).
    private static let queueCapacity = 256
    private static let burst = 20.0
    private static let perSecond = 10.0
    /// Generous: the queue holds at most 256 texts of ~12 KB (3 MB); 10 000 of them kept would be
    /// over 120 MB.
    private static let rssAllowanceKiB = 64 * 1024
    /// Debian's python3 (python3-dbus, python3-gi); a pyenv python3 earlier on PATH may lack them.
    /// Always run with -I: the package's own dbus/ directory would shadow the dbus module.
    private static let python = "/usr/bin/python3"

    /// One flooder: its own bus connection; sends `count` Speak calls (~12 KB texts, default
    /// priority `message`) as fast as replies come back, `window` in flight; counts replies and
    /// errors by D-Bus error name; prints "ready", "progress N" lines and one JSON summary line.
    private static let flooder = #"""
        import json, os, sys, time
        import dbus
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib

        client, count, window, go = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
        DBusGMainLoop(set_as_default=True)
        bus = dbus.SessionBus()
        proxy = bus.get_object("io.github.lector.Lector1", "/io/github/lector/Lector1", introspect=False)
        speak = proxy.get_dbus_method("Speak", "io.github.lector.Lector1")
        filler = " ".join(["The flood of announcements goes on and on."] * 280)
        options = dbus.Dictionary({}, signature="sv")
        print("ready", flush=True)
        while not os.path.exists(go):
            time.sleep(0.002)

        loop = GLib.MainLoop()
        state = {"sent": 0, "done": 0, "first": None, "last": None}
        ids, errors = [], {}

        def send():
            n = state["sent"]
            state["sent"] += 1
            if state["first"] is None:
                state["first"] = time.monotonic()
            speak("Flood %d message %d. %s" % (client, n, filler), options, signature="sa{sv}",
                  timeout=10, reply_handler=replied, error_handler=failed)

        def settle():
            state["done"] += 1
            state["last"] = time.monotonic()
            if state["done"] % 100 == 0:
                print("progress %d" % state["done"], flush=True)
            if state["sent"] < count:
                send()
            elif state["done"] == count:
                loop.quit()

        def replied(speech_id):
            ids.append(int(speech_id))
            settle()

        def failed(error):
            name = error.get_dbus_name() or type(error).__name__
            errors[name] = errors.get(name, 0) + 1
            settle()

        for _ in range(min(window, count)):
            send()
        loop.run()
        print(json.dumps({"client": client, "sent": state["sent"], "ids": ids, "errors": errors,
                          "seconds": state["last"] - state["first"]}), flush=True)
        """#

    private struct Summary {
        var client: Int
        var sent: Int
        var ids: [UInt64]
        var errors: [String: Int]
        var seconds: Double
    }

    func testFloodFromTenClientsKeepsMemoryBoundedGetAllAnsweringAndImportantSpoken() throws {
        let lector = try LectorFixture()
        defer { lector.shutdown() }
        let session = lector.session
        let pid = lector.daemon.pid
        let error = LectorFixture.errorPrefix

        let probe = try session.run(Self.python, ["-I", "-c", "import dbus, dbus.mainloop.glib; from gi.repository import GLib"])
        guard probe.succeeded else {
            XCTFail("\(Self.python) lacks python3-dbus/python3-gi (scripts/install-deps --test): \(probe)")
            return
        }

        // Warm up (voice loaded, stream open), so the baseline is the daemon at work, not at rest.
        let warmUp = try lector.speak("Ready.")
        XCTAssertEqual(lector.finished(warmUp, timeout: 15)?.arguments.last, "done", context(lector))
        let baseline = try XCTUnwrap(Self.residentKiB(pid), "no VmRSS for \(pid)")
        var quietGetAll: [Double] = []
        for _ in 0..<3 {
            let (ok, seconds, result) = try getAll(session)
            XCTAssertTrue(ok, "GetAll before the flood: \(result)\(context(lector))")
            quietGetAll.append(seconds)
        }

        // Ten flooders, connected and waiting for the go file.
        let script = session.directory.appendingPathComponent("flooder.py")
        try Self.flooder.write(to: script, atomically: true, encoding: .utf8)
        let go = session.directory.appendingPathComponent("flood-go")
        let flooders = try (0..<Self.clients).map { client in
            try session.spawn(Self.python, ["-I", script.path, String(client), String(Self.messagesPerClient),
                                            String(Self.window), go.path])
        }
        XCTAssertTrue(poll(timeout: 20) {
            flooders.allSatisfy { $0.standardOutput.contains("ready") || !$0.isRunning }
        }, "flooders did not connect: \(flooders.map(\.output))")
        XCTAssertTrue(flooders.allSatisfy(\.isRunning), "a flooder exited early: \(flooders.map(\.output))")

        // The flood. Meanwhile: RSS, GetAll, queue length; one important announcement mid-flood.
        try Data().write(to: go)
        let floodStarted = Date()
        var rssSamples: [Int] = []
        var floodGetAll: [Double] = []
        var floodBusControl: [Double] = []
        var getAllFailures: [String] = []
        var maxWaiting = 0
        var queueFailures: [String] = []
        var important: (id: UInt64, called: Date, replied: Date, progress: Int, flooding: Int)?
        var lastQueueCheck = Date.distantPast
        let floodDeadline = Date(timeIntervalSinceNow: 40)
        while flooders.contains(where: \.isRunning) && Date() < floodDeadline {
            if let rss = Self.residentKiB(pid) { rssSamples.append(rss) }
            let (ok, seconds, result) = try getAll(session)
            if ok { floodGetAll.append(seconds) } else { getAllFailures.append("\(result)") }
            // Control: the same tool asking the bus itself, so busctl's own start-up under load shows.
            let control = Date()
            if try busId(session) { floodBusControl.append(Date().timeIntervalSince(control)) }

            // (Not once it is over capacity: a GetQueue reply over the bus's 32 MiB message limit
            // would get the daemon disconnected, hiding what the other checks would find.)
            if maxWaiting <= Self.queueCapacity, Date().timeIntervalSince(lastQueueCheck) > 0.4 || important == nil {
                lastQueueCheck = Date()
                let queue = try session.run(lector.lector, ["queue"], timeout: 10)
                if queue.succeeded {
                    maxWaiting = max(maxWaiting, queue.stdout.split(separator: "\n").filter { $0.contains("\twaiting\t") }.count)
                } else {
                    queueFailures.append("\(queue)")
                }
            }
            // Mid-flood: once the queue is (nearly) full, or a quarter of the calls are answered.
            let progress = Self.progress(flooders)
            if important == nil, maxWaiting >= Self.queueCapacity - 16 || progress >= Self.clients * Self.messagesPerClient / 4 {
                let called = Date()
                let id = try lector.speak("Important. Payment received: 35.20.", "{'priority': <'important'>}")
                important = (id, called, Date(), progress, flooders.filter(\.isRunning).count)
            }
        }
        let floodSeconds = Date().timeIntervalSince(floodStarted)
        XCTAssertFalse(flooders.contains(where: \.isRunning), "flooders still running after 40 s\(context(lector))")
        if let rss = Self.residentKiB(pid) { rssSamples.append(rss) }

        // The important one: started, heard, done (never interrupted, not starved by the flood).
        let sent = try XCTUnwrap(important, "the important announcement was never sent\(context(lector))")
        XCTAssertGreaterThan(sent.flooding, 0, "the flood was over before the important announcement was answered")
        let started = lector.started(sent.id, timeout: 15)
        let finished = started == nil ? nil : lector.finished(sent.id, timeout: 20)
        var heardSeconds = 0.0
        if let started, let finished {
            heardSeconds = lector.recording.soundDuration(after: started.receivedAt)
                - lector.recording.soundDuration(after: finished.receivedAt)
        }
        XCTAssertNotNil(started, "important \(sent.id) never started\(context(lector))")
        XCTAssertEqual(finished?.arguments.last, "done", "important \(sent.id): \(lector.signals(of: sent.id))\(context(lector))")
        XCTAssertGreaterThan(heardSeconds, 0.5, "important \(sent.id) not heard on the sink monitor\(context(lector))")
        XCTAssertFalse(lector.ranges(of: sent.id).isEmpty, "no SpeakingRange for important \(sent.id)")

        // Drain: Stop cancels whatever the flood left speaking or waiting.
        let stop = try lector.call("Stop", [])
        XCTAssertTrue(stop.succeeded, "Stop: \(stop)\(context(lector))")

        // What the flooders saw.
        let summaries = flooders.compactMap { Self.summary(of: $0) }
        XCTAssertEqual(summaries.count, Self.clients, "missing flooder summaries: \(flooders.map(\.output))")
        var errorTotals: [String: Int] = [:]
        for summary in summaries {
            XCTAssertEqual(summary.sent, Self.messagesPerClient, "client \(summary.client)")
            XCTAssertEqual(summary.ids.count + summary.errors.values.reduce(0, +), Self.messagesPerClient,
                           "client \(summary.client): every call answered")
            summary.errors.forEach { errorTotals[$0.key, default: 0] += $0.value }
            // The token bucket: a burst of 20, then 10 a second, over the client's own flood time.
            let allowed = Self.burst + Self.perSecond * summary.seconds + 1
            XCTAssertLessThanOrEqual(Double(summary.ids.count), allowed,
                                     "client \(summary.client) got \(summary.ids.count) accepted in \(summary.seconds) s")
        }
        let accepted = summaries.flatMap(\.ids)
        let calls = Self.clients * Self.messagesPerClient
        let refused = (errorTotals[error + "RateLimited"] ?? 0) + (errorTotals[error + "QueueFull"] ?? 0)
        let otherErrors = errorTotals.filter { $0.key != error + "RateLimited" && $0.key != error + "QueueFull" }
        XCTAssertTrue(otherErrors.isEmpty, "errors other than RateLimited/QueueFull: \(otherErrors)\(context(lector))")
        XCTAssertGreaterThan(errorTotals[error + "RateLimited"] ?? 0, 0, "no RateLimited: \(errorTotals)")
        XCTAssertGreaterThanOrEqual(refused, calls * 9 / 10, "the limits refused only \(refused) of \(calls)")
        XCTAssertEqual(Set(accepted).count, accepted.count, "an id was handed out twice")

        // Every id ends with exactly one SpeechFinished, and no other id appears.
        let known = Set(accepted + [warmUp, sent.id])
        let drained = poll(timeout: 20) {
            Set(lector.watcher.signals(named: "SpeechFinished").compactMap { $0.arguments.first.flatMap(UInt64.init) })
                .isSuperset(of: known)
        }
        let finishes = lector.watcher.signals(named: "SpeechFinished")
        var finishCount: [UInt64: Int] = [:]
        var reasons: [String: Int] = [:]
        for signal in finishes {
            guard let id = signal.arguments.first.flatMap(UInt64.init) else { continue }
            finishCount[id, default: 0] += 1
            reasons[signal.arguments.last ?? "?", default: 0] += 1
        }
        let missing = known.subtracting(finishCount.keys)
        XCTAssertTrue(drained && missing.isEmpty, "\(missing.count) ids without SpeechFinished: \(missing.sorted().prefix(20))")
        let repeated = finishCount.filter { $0.value > 1 }
        XCTAssertTrue(repeated.isEmpty, "ids with more than one SpeechFinished: \(repeated.sorted { $0.key < $1.key }.prefix(20))")
        let strangers = Set(finishCount.keys).subtracting(known)
        XCTAssertTrue(strangers.isEmpty, "SpeechFinished for ids no client was given: \(strangers.sorted().prefix(20))")

        // Bounded: the queue never over its capacity, memory well under the allowance.
        XCTAssertTrue(queueFailures.isEmpty, "lector queue failed during the flood: \(queueFailures.prefix(3))")
        XCTAssertLessThanOrEqual(maxWaiting, Self.queueCapacity, "queue length")
        Thread.sleep(forTimeInterval: 0.5)
        let afterStop = Self.residentKiB(pid)
        if let afterStop { rssSamples.append(afterStop) }
        let peak = rssSamples.max() ?? 0
        XCTAssertLessThanOrEqual(peak, baseline + Self.rssAllowanceKiB,
                                 "VmRSS grew from \(baseline) kB to \(peak) kB during the flood")

        // Responsive throughout: every GetAll answered (busctl's 5 s timeout), and more than a few of them.
        XCTAssertTrue(getAllFailures.isEmpty, "GetAll failed during the flood: \(getAllFailures.prefix(3))\(context(lector))")
        XCTAssertGreaterThanOrEqual(floodGetAll.count, 3, "too few GetAll calls during the flood")
        lector.assertServing("after the flood")

        func ms(_ seconds: Double?) -> String { seconds.map { String(format: "%.0f ms", $0 * 1000) } ?? "-" }
        let figures = """
            FloodTests (\(session.soundServerKind.rawValue)): \(calls) calls from \(Self.clients) clients in \
            \(String(format: "%.1f", floodSeconds)) s; accepted \(accepted.count), errors \(errorTotals.sorted { $0.key < $1.key })
              VmRSS kB: baseline \(baseline), peak \(peak), after Stop \(afterStop.map(String.init) ?? "-"), \
            samples \(rssSamples.count)
              GetAll via busctl (incl. process start): quiet median \(ms(Percentile.of(quietGetAll, 0.5))); \
            flood n=\(floodGetAll.count) median \(ms(Percentile.of(floodGetAll, 0.5))) \
            p90 \(ms(Percentile.of(floodGetAll, 0.9))) max \(ms(floodGetAll.max())); \
            control (busctl GetId of the bus itself) median \(ms(Percentile.of(floodBusControl, 0.5))) \
            max \(ms(floodBusControl.max()))
              queue: max waiting \(maxWaiting)
              important \(sent.id): sent after \(String(format: "%.2f", sent.called.timeIntervalSince(floodStarted))) s \
            (flood progress \(sent.progress)/\(calls), \(sent.flooding) flooders still running at its reply), reply \(ms(sent.replied.timeIntervalSince(sent.called))), \
            SpeechStarted \(ms(started?.receivedAt.timeIntervalSince(sent.called))), \
            finished \(ms(finished?.receivedAt.timeIntervalSince(sent.called))) \(finished?.arguments.last ?? "-"), \
            heard \(String(format: "%.2f", heardSeconds)) s
              SpeechFinished reasons: \(reasons.sorted { $0.key < $1.key })
            """
        print(figures)
    }

    // MARK: - Helpers

    /// MPRIS GetAll of the Player interface with busctl (5 s method timeout): answered, wall time, result.
    private func getAll(_ session: TestSession) throws -> (Bool, Double, ProcessResult) {
        let start = Date()
        let result = try session.run("busctl", ["--user", "--timeout=5", "call", "org.mpris.MediaPlayer2.lector",
                                                "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties",
                                                "GetAll", "s", "org.mpris.MediaPlayer2.Player"], timeout: 10)
        let seconds = Date().timeIntervalSince(start)
        return (result.succeeded && result.stdout.hasPrefix("a{sv}"), seconds, result)
    }

    /// org.freedesktop.DBus.GetId with busctl: answered by dbus-daemon itself, never by Lector.
    private func busId(_ session: TestSession) throws -> Bool {
        try session.run("busctl", ["--user", "--timeout=5", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus", "GetId"], timeout: 10).succeeded
    }

    /// VmRSS of /proc/PID/status in kB.
    private static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count >= 2 ? Int(fields[1]) : nil
        }
        return nil
    }

    /// Calls answered so far, summed over the flooders' "progress N" lines.
    private static func progress(_ flooders: [ManagedProcess]) -> Int {
        flooders.reduce(0) { total, flooder in
            let last = flooder.standardOutput.split(separator: "\n").last { $0.hasPrefix("progress ") }
            return total + (last.flatMap { Int($0.dropFirst("progress ".count)) } ?? 0)
        }
    }

    private static func summary(of flooder: ManagedProcess) -> Summary? {
        guard let line = flooder.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let client = object["client"] as? Int, let sent = object["sent"] as? Int,
              let ids = object["ids"] as? [NSNumber], let errors = object["errors"] as? [String: Int],
              let seconds = object["seconds"] as? Double else { return nil }
        return Summary(client: client, sent: sent, ids: ids.map(\.uint64Value), errors: errors, seconds: seconds)
    }

    /// The fixture's context, with the daemon log cut to its end (a flood makes it long).
    private func context(_ lector: LectorFixture) -> String {
        let text = lector.context
        return text.count > 6000 ? "…" + String(text.suffix(6000)) : text
    }
}
