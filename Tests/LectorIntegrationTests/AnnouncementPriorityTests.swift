import Foundation
import LectorTestKit
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 5's queue: the `priority` option's SSIP rules (see AnnouncementQueue's doc), the
/// bounded queue and per-sender rate limit, `digits` and `ssml`, GetQueue and the CLI. Every
/// ordering is checked on the SpeechStarted/SpeechFinished signals (which ids started, in which
/// order, each id's one SpeechFinished reason) and on the sink monitor (each spoken one was heard,
/// nothing is heard once the last one finished).
///
/// One daemon serves the class; each test starts from Stop and silence. `gdbus call` gives every
/// call its own connection, i.e. its own sender; `RawBusConnection` (below) sends many calls from
/// one sender, for the per-sender limits and for `progress` series.
final class AnnouncementPriorityTests: XCTestCase {
    nonisolated(unsafe) private static var shared: LectorFixture?
    private var lector: LectorFixture!
    /// Test-local names of the ids, so sequences read "start A", "end A cancelled".
    private var names: [UInt64: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        if let existing = Self.shared, existing.daemon.isRunning {
            lector = existing
        } else {
            Self.shared?.shutdown()
            Self.shared = nil
            Self.shared = try LectorFixture()
            lector = Self.shared
        }
        let stop = try lector.call("Stop", [])
        XCTAssertTrue(stop.succeeded, "\(stop)")
        XCTAssertTrue(lector.recording.waitForSilence(quiet: 0.3, timeout: 10), "not silent before the test")
    }

    override func tearDown() {
        _ = try? lector?.call("Stop", [])
        lector = nil
        names = [:]
        super.tearDown()
    }

    override class func tearDown() {
        shared?.shutdown()
        shared = nil
        super.tearDown()
    }

    static let mediumText = "This message takes a few seconds to say, so that others arrive while it speaks."

    // MARK: - Helpers

    /// Speak through gdbus (a sender of its own) with this priority; the id gets `name`.
    @discardableResult
    private func say(_ name: String, _ text: String, _ priority: String, _ extra: String = "",
                     file: StaticString = #filePath, line: UInt = #line) throws -> UInt64 {
        let options = "{'priority': <'\(priority)'>" + (extra.isEmpty ? "" : ", " + extra) + "}"
        let id = try lector.speak(text, options, file: file, line: line)
        names[id] = name
        return id
    }

    private func lector1(_ signal: ObservedSignal) -> Bool { signal.interface == LectorFixture.interface }

    /// SpeechStarted/SpeechFinished of the named ids, in arrival order.
    private func lifecycle() -> [String] {
        lector.watcher.signals().compactMap { signal in
            guard lector1(signal), let id = signal.arguments.first.flatMap(UInt64.init), let name = names[id] else { return nil }
            switch signal.member {
            case "SpeechStarted": return "start \(name)"
            case "SpeechFinished": return "end \(name) \(signal.arguments.last ?? "?")"
            default: return nil
            }
        }
    }

    private func signal(_ member: String, _ id: UInt64) -> ObservedSignal? {
        lector.watcher.signals(named: member).first { lector1($0) && $0.arguments.first == String(id) }
    }

    /// Waits (generously) until `id` started; its signal.
    private func waitStarted(_ id: UInt64, timeout: TimeInterval = 10,
                             file: StaticString = #filePath, line: UInt = #line) throws -> ObservedSignal {
        try XCTUnwrap(lector.watcher.wait(timeout: timeout) {
            lector1($0) && $0.member == "SpeechStarted" && $0.arguments.first == String(id)
        }, "\(names[id] ?? String(id)) never started\(lector.context)", file: file, line: line)
    }

    /// Waits until every named id has a SpeechFinished, then half a second more, so that a second
    /// SpeechFinished of any of them would be in `lifecycle()`.
    private func waitAllFinished(timeout: TimeInterval = 45, file: StaticString = #filePath, line: UInt = #line) {
        let all = Set(names.keys)
        let done = poll(timeout: timeout) {
            let finished = Set(lector.watcher.signals(named: "SpeechFinished").filter(lector1)
                .compactMap { $0.arguments.first.flatMap(UInt64.init) })
            return all.isSubset(of: finished)
        }
        XCTAssertTrue(done, "not every id finished: \(lifecycle())\(lector.context)", file: file, line: line)
        // The last words reach the monitor after SpeechFinished: heard-time checks need them recorded.
        XCTAssertTrue(lector.recording.waitForSilence(quiet: 0.3, timeout: 5), "still sounding after every id finished", file: file, line: line)
    }

    /// Seconds of sound on the monitor between id's SpeechStarted and SpeechFinished.
    private func heardSeconds(_ id: UInt64) -> TimeInterval {
        guard let started = signal("SpeechStarted", id), let finished = signal("SpeechFinished", id) else { return 0 }
        let recording = lector.recording
        return recording.soundDuration(after: started.receivedAt.addingTimeInterval(-0.1))
            - recording.soundDuration(after: finished.receivedAt.addingTimeInterval(0.05))
    }

    /// Each of these was heard while it spoke.
    private func assertHeard(_ ids: [UInt64], atLeast seconds: TimeInterval = 0.3,
                             file: StaticString = #filePath, line: UInt = #line) {
        for id in ids {
            let heard = heardSeconds(id)
            XCTAssertGreaterThan(heard, seconds, "\(names[id] ?? String(id)) was not heard while it spoke (\(heard) s)\(lector.context)",
                                 file: file, line: line)
        }
    }

    /// Once the last speech finished, the sink goes quiet: nothing interrupted keeps playing.
    private func assertSilentAfterwards(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(lector.recording.waitForSilence(quiet: 0.8, timeout: 3),
                      "still sound after every speech finished: an interrupted one goes on\(lector.context)", file: file, line: line)
    }

    /// GetQueue through busctl's JSON: (id, priority, state, text) in speaking order.
    private func getQueue() throws -> [(id: UInt64, priority: String, state: String, text: String)] {
        let result = try lector.session.run("busctl", ["--user", "--json=short", "call", LectorFixture.service,
                                                       LectorFixture.objectPath, LectorFixture.interface, "GetQueue"],
                                            timeout: 10)
        guard result.succeeded else { throw TestKitError.failed("GetQueue: \(result)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["type"] as? String, "a(tsss)", result.stdout)
        guard let data = object?["data"] as? [Any], let entries = data.first as? [[Any]] else {
            throw TestKitError.failed("GetQueue answered \(result.stdout)")
        }
        return try entries.map { entry in
            guard entry.count == 4, let id = (entry[0] as? NSNumber)?.uint64Value, let priority = entry[1] as? String,
                  let state = entry[2] as? String, let text = entry[3] as? String else {
                throw TestKitError.failed("GetQueue entry \(entry)")
            }
            return (id, priority, state, text)
        }
    }

    /// The longest stretch without sound between two sounds heard within [start, end].
    private func longestGapBetweenSounds(from start: Date, to end: Date) -> TimeInterval {
        guard var cursor = lector.recording.firstSound(after: start), cursor < end else { return 0 }
        var longest = 0.0
        while let next = lector.recording.firstSound(after: cursor.addingTimeInterval(0.002)), next < end {
            longest = max(longest, next.timeIntervalSince(cursor))
            cursor = max(cursor.addingTimeInterval(0.002), next)
        }
        return longest
    }

    private func rawConnection() throws -> RawBusConnection {
        try RawBusConnection(address: lector.session.busAddress)
    }

    private func errorName(_ suffix: String) -> String { LectorFixture.errorPrefix + suffix }

    // MARK: - Arriving together

    func testMessagesArrivingTogetherAreSpokenOneByOneInOrder() throws {
        // Four calls written in one go on one connection: they reach the daemon together.
        let client = try rawConnection()
        let texts = ["First message.", "Second message.", "Third message.", "Fourth message."]
        let serials = try texts.map { try client.sendSpeak($0, ["priority": .string("message")]) }
        let ids = try serials.map { serial -> UInt64 in
            let reply = try client.reply(to: serial)
            return try XCTUnwrap(reply.id, "Speak refused: \(reply)")
        }
        for (index, id) in ids.enumerated() { names[id] = ["A", "B", "C", "D"][index] }
        XCTAssertEqual(ids, ids.sorted(), "ids increase in arrival order")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start A", "end A done", "start B", "end B done",
                                     "start C", "end C done", "start D", "end D done"], lector.context)
        assertHeard(ids)
        // Each one's words, heard in order, are its own.
        for (id, text) in zip(ids, texts) {
            let words = lector.ranges(of: id).compactMap { range -> String? in
                guard range.arguments.count == 3, let start = Int(range.arguments[1]), let length = Int(range.arguments[2]),
                      start + length <= text.unicodeScalars.count else { return nil }
                return String(String.UnicodeScalarView(Array(text.unicodeScalars)[start..<(start + length)]))
            }
            XCTAssertEqual(words, text.dropLast().split(separator: " ").map(String.init), "SpeakingRange of \"\(text)\"")
        }
        assertSilentAfterwards()
    }

    // MARK: - important

    func testImportantInterruptsASpeakingMessageAndGoesBeforeWaitingOnes() throws {
        let a = try say("A", Texts.long, "message")
        _ = try waitStarted(a)
        try say("C", "Then the waiting message.", "message")
        let called = Date()
        let b = try say("B", "Important news.", "important")
        let aEnded = try XCTUnwrap(lector.finished(a, timeout: 5), "A was not interrupted\(lector.context)")
        XCTAssertLessThan(aEnded.receivedAt.timeIntervalSince(called), 3, "A ended late\(lector.context)")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start A", "end A cancelled", "start B", "end B done", "start C", "end C done"],
                       lector.context)
        assertHeard([b, names.first { $0.value == "C" }!.key])
        assertSilentAfterwards()
    }

    func testImportantIsNeverInterruptedAndImportantOnesAreFirstInArrivalOrder() throws {
        let first = try say("I1", "Important one is spoken to its very end, without interruption.", "important")
        _ = try waitStarted(first)
        // Arrival: M, T, I2, I3 while I1 speaks. Speaking order: I1, I2, I3, M, T.
        try say("M", "A message.", "message")
        try say("T", "A text.", "text")
        try say("I2", "Important two.", "important")
        try say("I3", "Important three.", "important")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start I1", "end I1 done", "start I2", "end I2 done", "start I3", "end I3 done",
                                     "start M", "end M done", "start T", "end T done"], lector.context)
        assertHeard(Array(names.keys))
        XCTAssertGreaterThan(heardSeconds(first), 2, "I1 was cut short")
        assertSilentAfterwards()
    }

    // MARK: - message

    func testMessageCancelsSpeakingAndWaitingTextNotificationAndProgress() throws {
        // A speaking text, a speaking notification and a speaking progress are interrupted.
        for (kind, name) in [("text", "T"), ("notification", "N"), ("progress", "P")] {
            let speaking = try say(name, Texts.long, kind)
            _ = try waitStarted(speaking)
            let message = try say("M\(name)", "Message after a \(kind).", "message")
            XCTAssertEqual(lector.finished(speaking, timeout: 5)?.arguments.last, "cancelled",
                           "a speaking \(kind) and a message\(lector.context)")
            _ = lector.finished(message, timeout: 15)
        }
        // A waiting text is cancelled without ever starting; the speaking message goes on.
        let m0 = try say("M0", Self.mediumText, "message")
        _ = try waitStarted(m0)
        try say("TW", "A waiting text.", "text")
        try say("M1", "The next message.", "message")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start T", "end T cancelled", "start MT", "end MT done",
                                     "start N", "end N cancelled", "start MN", "end MN done",
                                     "start P", "end P cancelled", "start MP", "end MP done",
                                     "start M0", "end TW cancelled", "end M0 done", "start M1", "end M1 done"],
                       lector.context)
        assertHeard(names.filter { ["MT", "MN", "MP", "M0", "M1"].contains($0.value) }.map(\.key))
        assertSilentAfterwards()
    }

    // MARK: - text

    func testOnlyTheLatestTextIsKept() throws {
        // Speaking texts are superseded by newer ones.
        let t1 = try say("T1", Texts.long, "text")
        _ = try waitStarted(t1)
        let t2 = try say("T2", Texts.long, "text")
        XCTAssertEqual(lector.finished(t1, timeout: 5)?.arguments.last, "superseded", lector.context)
        _ = try waitStarted(t2)
        let t3 = try say("T3", "The latest text.", "text")
        _ = lector.finished(t3, timeout: 15)
        // Waiting texts too: only the last of three waits behind a message.
        let m = try say("M", Self.mediumText, "message")
        _ = try waitStarted(m)
        try say("T4", "Text four.", "text")
        try say("T5", "Text five.", "text")
        let t6 = try say("T6", "Text six.", "text")
        // A text interrupts a speaking notification (cancelled, not superseded).
        waitAllFinished()
        let n = try say("N", Texts.long, "notification")
        _ = try waitStarted(n)
        let t7 = try say("T7", "Text seven.", "text")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start T1", "end T1 superseded", "start T2", "end T2 superseded",
                                     "start T3", "end T3 done",
                                     "start M", "end T4 superseded", "end T5 superseded", "end M done",
                                     "start T6", "end T6 done",
                                     "start N", "end N cancelled", "start T7", "end T7 done"], lector.context)
        assertHeard([t3, m, t6, t7])
        assertSilentAfterwards()
    }

    // MARK: - notification

    func testNotificationIsDroppedWhenAnythingSpeaksAndANewerOneSupersedesIt() throws {
        let m = try say("M", Self.mediumText, "message")
        _ = try waitStarted(m)
        let dropped = try say("N1", "A notification nobody hears.", "notification")
        XCTAssertEqual(lector.finished(dropped, timeout: 5)?.arguments.last, "dropped", lector.context)
        waitAllFinished()
        // Alone, a notification speaks; a newer one replaces it; an important one cancels it.
        let n2 = try say("N2", Texts.long, "notification")
        _ = try waitStarted(n2)
        let n3 = try say("N3", "A newer notification, which is heard for a while before it is interrupted.", "notification")
        _ = try waitStarted(n3)
        let i = try say("I", "Important.", "important")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start M", "end N1 dropped", "end M done",
                                     "start N2", "end N2 superseded", "start N3", "end N3 cancelled",
                                     "start I", "end I done"], lector.context)
        assertHeard([m, i])
        assertSilentAfterwards()
    }

    // MARK: - progress

    func testProgressSpeaksTheLastOfASeriesAndIsPromotedRatherThanCancelled() throws {
        let series = try rawConnection()
        let m0 = try say("M0", Self.mediumText, "message")
        _ = try waitStarted(m0)
        // One sender's series while a message speaks: each supersedes the one before.
        for (name, text) in [("P1", "Ten percent."), ("P2", "Fifty percent."), ("P3", "Ninety percent.")] {
            let reply = try series.speak(text, ["priority": .string("progress")])
            names[try XCTUnwrap(reply.id, "\(reply)")] = name
        }
        // A message would cancel a waiting progress, but the last of a series is promoted instead.
        try say("M1", "The message after the progress.", "message")
        let queue = try getQueue()
        XCTAssertEqual(queue.map { "\(names[$0.id] ?? "?") \($0.priority) \($0.state)" },
                       ["M0 message speaking", "P3 message waiting", "M1 message waiting"], "GetQueue: \(queue)")
        waitAllFinished()
        // Progress never interrupts progress: the newer one waits, the speaking one ends as done.
        let p4 = try XCTUnwrap(try series.speak("Progress four says a little more than the others.",
                                                ["priority": .string("progress")]).id)
        names[p4] = "P4"
        _ = try waitStarted(p4)
        let p5 = try XCTUnwrap(try series.speak("Done.", ["priority": .string("progress")]).id)
        names[p5] = "P5"
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start M0", "end P1 superseded", "end P2 superseded", "end M0 done",
                                     "start P3", "end P3 done", "start M1", "end M1 done",
                                     "start P4", "end P4 done", "start P5", "end P5 done"], lector.context)
        assertHeard(names.filter { !["P1", "P2"].contains($0.value) }.map(\.key))
        assertSilentAfterwards()
    }

    // MARK: - Limits

    func testOneSenderIsRefusedOver32WaitingWhileAnotherSendersImportantGoesThrough() throws {
        let flood = try rawConnection()
        var accepted: [UInt64] = []
        var refusal: RawBusConnection.Reply?
        let deadline = Date(timeIntervalSinceNow: 30)
        // Paced under the rate limit (retry after RateLimited) until the queue refuses.
        while refusal == nil, accepted.count < 40, Date() < deadline {
            let reply = try flood.speak(accepted.isEmpty ? Texts.long : "Flood message \(accepted.count).",
                                        ["priority": .string("message")])
            if let id = reply.id {
                accepted.append(id)
                if accepted.count == 1 { _ = try waitStarted(id) }
            } else if reply.errorName == errorName("RateLimited") {
                usleep(150_000)
            } else {
                refusal = reply
            }
        }
        for (index, id) in accepted.enumerated() { names[id] = "F\(index)" }
        XCTAssertEqual(refusal?.errorName, errorName("QueueFull"), "\(String(describing: refusal))")
        XCTAssertTrue(refusal?.errorMessage.contains("32") == true, "\(String(describing: refusal))")
        XCTAssertEqual(accepted.count, 33, "one speaking and 32 waiting before QueueFull")
        let queue = try getQueue()
        XCTAssertEqual(queue.filter { $0.state == "waiting" }.count, 32)
        XCTAssertEqual(queue.first?.id, accepted.first)
        XCTAssertEqual(queue.first?.state, "speaking")

        // Other senders are not refused; an important one interrupts and is heard.
        try say("O", "Another sender's message.", "message")
        let called = Date()
        let important = try say("I", "Important from another sender.", "important")
        let started = try waitStarted(important)
        XCTAssertLessThan(started.receivedAt.timeIntervalSince(called), 5, lector.context)
        XCTAssertEqual(lector.finished(important, timeout: 15)?.arguments.last, "done", lector.context)
        assertHeard([important])
        XCTAssertEqual(lector.finished(accepted[0], timeout: 1)?.arguments.last, "cancelled", lector.context)

        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        waitAllFinished()
        // Every id ended exactly once; the important one and F1 (which spoke after it) were not cancelled by the queue.
        let events = lifecycle()
        for (id, name) in names {
            XCTAssertEqual(events.filter { $0.hasPrefix("end \(name) ") }.count, 1, "\(name) (\(id)): \(events)")
        }
        XCTAssertTrue(events.contains("end O cancelled"), "\(events)")
        assertSilentAfterwards()
    }

    func testASenderOverItsRateIsRateLimitedButItsImportantAndOtherSendersGoOn() throws {
        let flood = try rawConnection()
        // 30 calls in one write: the first 20 are the burst.
        let serials = try (0..<30).map { try flood.sendSpeak("Burst \($0).", ["priority": .string("message")]) }
        let replies = try serials.map { try flood.reply(to: $0) }
        let accepted = replies.compactMap(\.id)
        let limited = replies.filter { $0.errorName == errorName("RateLimited") }
        XCTAssertEqual(accepted.count + limited.count, 30, "other refusals: \(replies.filter { $0.id == nil })")
        XCTAssertGreaterThanOrEqual(accepted.count, 20, "the burst is 20")
        XCTAssertLessThanOrEqual(accepted.count, 22, "10 a second after the burst")
        XCTAssertTrue(limited.first?.errorMessage.contains("slow down") == true, "\(limited.first.map { "\($0)" } ?? "")")
        XCTAssertEqual(replies.prefix(20).compactMap(\.id).count, 20, "refused within the burst")
        for (index, id) in accepted.enumerated() { names[id] = "B\(index)" }

        // The same sender's important one has its own allowance; another sender is not limited.
        let important = try flood.speak("Important despite the flood.", ["priority": .string("important")])
        let importantID = try XCTUnwrap(important.id, "important refused: \(important)")
        names[importantID] = "I"
        try say("O", "Another sender.", "message")
        _ = try waitStarted(importantID)
        XCTAssertEqual(lector.finished(importantID, timeout: 15)?.arguments.last, "done", lector.context)
        assertHeard([importantID])

        // The bucket refills: a second and a half later the sender may speak again.
        Thread.sleep(forTimeInterval: 1.5)   // scenario time: the sender's bucket refills
        let later = try flood.speak("Later.", ["priority": .string("message")])
        names[try XCTUnwrap(later.id, "still limited after 1.5 s: \(later)")] = "L"

        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        waitAllFinished()
        let events = lifecycle()
        for name in names.values {
            XCTAssertEqual(events.filter { $0.hasPrefix("end \(name) ") }.count, 1, "\(name): \(events)")
        }
        assertSilentAfterwards()
    }

    /// 256 waiting from eight senders: a ninth sender's message is refused, an important one
    /// evicts the oldest least important waiting speech (`dropped`) and is spoken.
    func testAFullQueueRefusesMessagesButMakesRoomForAnImportantOne() throws {
        let clients = try (0..<8).map { _ in try rawConnection() }
        let first = try XCTUnwrap(try clients[0].speak(Texts.long, ["priority": .string("message")]).id)
        names[first] = "S"
        _ = try waitStarted(first)
        var full = Array(repeating: false, count: clients.count)
        var count = 0
        let deadline = Date(timeIntervalSinceNow: 60)
        while full.contains(false), Date() < deadline {
            var limited = false
            for (index, client) in clients.enumerated() where !full[index] {
                let reply = try client.speak("Waiting \(index) \(count).", ["priority": .string("message")])
                if let id = reply.id {
                    names[id] = "W\(count)"
                    count += 1
                } else if reply.errorName == errorName("RateLimited") {
                    limited = true
                } else {
                    XCTAssertEqual(reply.errorName, errorName("QueueFull"), "\(reply)")
                    full[index] = true
                }
            }
            if limited { usleep(120_000) }
        }
        XCTAssertEqual(count, 256, "waiting speeches when every sender was refused")
        let queue = try getQueue()
        XCTAssertEqual(queue.count, 257, "one speaking and 256 waiting")
        let oldestWaiting = try XCTUnwrap(queue.dropFirst().first?.id)

        let refused = try lector.call("Speak", ["One more message.", "{'priority': <'message'>}"])
        lector.assertError(refused, "QueueFull", "a message into a full queue")
        XCTAssertTrue(refused.stderr.contains("256"), "\(refused)")

        let important = try say("I", "Important, into a full queue.", "important")
        XCTAssertEqual(lector.finished(oldestWaiting, timeout: 5)?.arguments.last, "dropped",
                       "the oldest waiting message makes room\(lector.context)")
        _ = try waitStarted(important)
        XCTAssertEqual(lector.finished(important, timeout: 15)?.arguments.last, "done", lector.context)
        assertHeard([important])

        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        waitAllFinished(timeout: 60)
        let events = lifecycle()
        var ends: [String: Int] = [:]
        for event in events where event.hasPrefix("end ") { ends[event.split(separator: " ")[1].description, default: 0] += 1 }
        XCTAssertEqual(ends.count, names.count, "ids without SpeechFinished")
        XCTAssertTrue(ends.values.allSatisfy { $0 == 1 }, "an id finished twice: \(ends.filter { $0.value != 1 })")
        XCTAssertEqual(events.filter { $0.hasSuffix(" dropped") }, ["end \(names[oldestWaiting]!) dropped"])
        XCTAssertTrue(events.contains("end S cancelled"), "the speaking message was interrupted by the important one")
        assertSilentAfterwards()
    }

    // MARK: - digits and ssml

    func testBadDigitsAndSSMLAreInvalidArgument() throws {
        let refusals: [(String, String, String)] = [
            ("Code 1234", "{'digits': <'roman'>}", "unknown digits mode"),
            ("Code 1234", "{'digits': <true>}", "digits of the wrong type"),
            ("Hello", "{'ssml': <'yes'>}", "ssml of the wrong type"),
            ("<speak>Hello <b>world</b></speak>", "{'ssml': <true>}", "an element that is not SSML"),
            ("<speak>Hello world", "{'ssml': <true>}", "an unclosed element"),
            ("<speak>Fish & chips</speak>", "{'ssml': <true>}", "a bare ampersand"),
            ("Hello <break/> world", "{'ssml': <true>}", "no <speak> root"),
        ]
        let since = Date()
        for (text, options, what) in refusals {
            let result = try lector.call("Speak", [text, options])
            lector.assertError(result, "InvalidArgument", what)
        }
        XCTAssertEqual(try lector.call("Speak", ["<speak>Hello <b>world</b></speak>", "{'ssml': <true>}"]).stderr
                        .contains("invalid SSML at line 1, column"), true, "the error says where")
        XCTAssertNil(lector.recording.firstSound(after: since), "a refused speech was heard")
        XCTAssertTrue(lector.watcher.signals().filter { lector1($0) && $0.receivedAt >= since }.isEmpty,
                      "a refused speech got signals")
        lector.assertServing("after bad digits/ssml")
    }

    /// Valid SSML is spoken as SSML: a 1.2 s <break/> is a 1.2 s silence in the middle.
    func testSSMLIsSpokenWithItsMarkupObeyed() throws {
        let id = try say("S", "<speak>Before the pause. <break time=\"1200ms\"/> After the pause.</speak>", "message",
                         "'ssml': <true>")
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start S", "end S done"], lector.context)
        let started = try XCTUnwrap(signal("SpeechStarted", id)), finished = try XCTUnwrap(signal("SpeechFinished", id))
        let longest = longestGapBetweenSounds(from: started.receivedAt.addingTimeInterval(-0.2), to: finished.receivedAt)
        XCTAssertGreaterThan(longest, 1.0, "no silence of the <break time=1200ms/>: the markup was not obeyed\(lector.context)")
        XCTAssertLessThan(finished.receivedAt.timeIntervalSince(started.receivedAt), 8, "the tags were read aloud?")
        assertHeard([id], atLeast: 1)
    }

    /// Speaks `text` to the end; its sound duration and the pieces of `text` its ranges cut.
    private func spoken(_ name: String, _ text: String, _ options: String) throws -> (seconds: TimeInterval, ranges: [Range<Int>]) {
        XCTAssertTrue(lector.recording.waitForSilence(quiet: 0.3, timeout: 10))
        let id = try say(name, text, "message", options)
        waitAllFinished()
        XCTAssertEqual(signal("SpeechFinished", id)?.arguments.last, "done", "\(name)\(lector.context)")
        let ranges = lector.ranges(of: id).compactMap { signal -> Range<Int>? in
            guard signal.arguments.count == 3, let start = Int(signal.arguments[1]), let length = Int(signal.arguments[2]) else {
                XCTFail("malformed \(signal)")
                return nil
            }
            return start..<(start + length)
        }
        return (heardSeconds(id), ranges)
    }

    /// Checks that `ranges` cut `before`, then only pieces of the span `number`, covering it whole,
    /// then `after`: offsets into the original text even though a rewritten one was spoken.
    private func assertRanges(_ ranges: [Range<Int>], of text: String, before: String, number: String, after: String,
                              _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let scalars = Array(text.unicodeScalars)
        let piece = { (range: Range<Int>) -> String in
            range.upperBound <= scalars.count ? String(String.UnicodeScalarView(scalars[range])) : "<\(range) out of the text>"
        }
        let found = text.range(of: number)!
        let numberStart = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: found.lowerBound)
        let numberRange = numberStart..<(numberStart + number.unicodeScalars.count)
        let pieces = ranges.map(piece)
        XCTAssertEqual(pieces.first, before, "\(what): \(pieces)", file: file, line: line)
        XCTAssertEqual(pieces.last, after, "\(what): \(pieces)", file: file, line: line)
        let inside = ranges.dropFirst().dropLast()
        XCTAssertFalse(inside.isEmpty, "\(what): no range for \(number): \(pieces)", file: file, line: line)
        XCTAssertTrue(inside.allSatisfy { numberRange.contains($0.lowerBound) && $0.upperBound <= numberRange.upperBound },
                      "\(what): ranges \(inside) outside \(number) at \(numberRange): \(pieces)", file: file, line: line)
        let covered = Set(inside.flatMap { Array($0) })
        XCTAssertEqual(covered, Set(numberRange), "\(what): \(number) not covered: \(pieces)", file: file, line: line)
    }

    func testDigitsModeChangesWhatIsHeardAndRangesPointIntoTheOriginalText() throws {
        // "1000000": one million as a number, seven words as digits ("1234" is no good: "one thousand
        // two hundred and thirty-four" lasts longer than "one two three four").
        let text = "Code 1000000 now"
        let number = try spoken("number", text, "'digits': <'number'>")
        let byDefault = try spoken("default", text, "'rate': <1.0>")
        let digits = try spoken("digits", text, "'digits': <'digits'>")
        XCTAssertGreaterThan(digits.seconds, number.seconds + 0.7,
                             "digits \(digits.seconds) s vs number \(number.seconds) s\(lector.context)")
        XCTAssertEqual(byDefault.seconds, number.seconds, accuracy: 0.4, "the default is number")
        assertRanges(number.ranges, of: text, before: "Code", number: "1000000", after: "now", "number")
        assertRanges(digits.ranges, of: text, before: "Code", number: "1000000", after: "now", "digits")
        XCTAssertGreaterThan(digits.ranges.count, number.ranges.count, "digits are words of their own")

        // Chinese too: 号码一百万 vs 号码一零零零零零零.
        let chinese = "号码1000000。"
        let chineseNumber = try spoken("zh number", chinese, "'language': <'zh-CN'>, 'digits': <'number'>")
        let chineseDigits = try spoken("zh digits", chinese, "'language': <'zh-CN'>, 'digits': <'digits'>")
        XCTAssertGreaterThan(chineseDigits.seconds, chineseNumber.seconds + 0.7,
                             "zh digits \(chineseDigits.seconds) s vs number \(chineseNumber.seconds) s\(lector.context)")
        let chineseScalars = Array(chinese.unicodeScalars)
        for range in chineseDigits.ranges {
            XCTAssertLessThanOrEqual(range.upperBound, chineseScalars.count, "zh range \(range) outside the text")
        }

        // Currency: the amount's ranges stay within "€35.20" of the original.
        let paid = "Paid €35.20 today"
        let currency = try spoken("currency", paid, "'digits': <'currency'>")
        assertRanges(currency.ranges, of: paid, before: "Paid", number: "€35.20", after: "today", "currency")
        assertSilentAfterwards()
    }

    // MARK: - GetQueue and the CLI

    func testGetQueueListsTheSpeakingOneThenTheWaitingOnesInSpeakingOrder() throws {
        XCTAssertEqual(try getQueue().count, 0, "empty at first")
        let a = try say("A", Texts.long, "important")
        _ = try waitStarted(a)
        let b = try say("B", "A message.", "message")
        let c = try say("C", "A text.", "text")
        let d = try say("D", "Another important one.", "important")
        let queue = try getQueue()
        XCTAssertEqual(queue.map(\.id), [a, d, b, c], "\(queue)")
        XCTAssertEqual(queue.map(\.priority), ["important", "important", "message", "text"])
        XCTAssertEqual(queue.map(\.state), ["speaking", "waiting", "waiting", "waiting"])
        XCTAssertEqual(queue.map(\.text), [Texts.long, "Another important one.", "A message.", "A text."])
        XCTAssertTrue(try lector.call("Stop", []).succeeded)
        waitAllFinished()
        XCTAssertEqual(lifecycle(), ["start A", "end A cancelled", "end D cancelled", "end B cancelled", "end C cancelled"],
                       "Stop: the speaking one first, then the queue in order")
        XCTAssertEqual(try getQueue().count, 0, "empty after Stop")
        assertSilentAfterwards()
    }

    func testCLISayPrintIDQueueAndCancel() throws {
        let cli = lector.lector
        let say = try lector.session.run(cli, ["say", "--print-id", "--priority", "important", Texts.long], timeout: 20)
        XCTAssertEqual(say.status, 0, "\(say)")
        let first = try XCTUnwrap(UInt64(say.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "say --print-id printed \(say.stdout)")
        names[first] = "A"
        _ = try waitStarted(first)
        let second = try lector.session.run(cli, ["say", "--print-id", "--digits", "digits", "Waiting 42."], timeout: 20)
        XCTAssertEqual(second.status, 0, "\(second)")
        let waiting = try XCTUnwrap(UInt64(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), second.stdout)
        names[waiting] = "B"
        XCTAssertGreaterThan(waiting, first)

        let queue = try lector.session.run(cli, ["queue"], timeout: 20)
        XCTAssertEqual(queue.status, 0, "\(queue)")
        let lines = queue.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, queue.stdout)
        XCTAssertEqual(lines.first?.split(separator: "\t").prefix(3).map(String.init), [String(first), "important", "speaking"], queue.stdout)
        XCTAssertTrue(lines.first?.hasSuffix("\t" + Texts.long.prefix(59) + "…") == true, queue.stdout)
        XCTAssertEqual(lines.last, "\(waiting)\tmessage\twaiting\tWaiting 42.", queue.stdout)

        let cancel = try lector.session.run(cli, ["cancel", String(waiting)], timeout: 20)
        XCTAssertEqual(cancel.status, 0, "\(cancel)")
        XCTAssertEqual(lector.finished(waiting, timeout: 5)?.arguments.last, "cancelled", lector.context)
        let again = try lector.session.run(cli, ["cancel", String(waiting)], timeout: 20)
        XCTAssertNotEqual(again.status, 0, "cancel of a finished id: \(again)")
        XCTAssertTrue(again.stderr.contains("NoSuchSpeech"), "\(again)")
        XCTAssertNotNil(lector.sound(after: Date(), timeout: 2), "A speaks on after B was cancelled")

        let all = try lector.session.run(cli, ["cancel", "--all"], timeout: 20)
        XCTAssertEqual(all.status, 0, "\(all)")
        XCTAssertEqual(lector.finished(first, timeout: 5)?.arguments.last, "cancelled", lector.context)
        assertSilentAfterwards()
        let empty = try lector.session.run(cli, ["queue"], timeout: 20)
        XCTAssertEqual(empty.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "nothing is being spoken or waiting", "\(empty)")
        XCTAssertEqual(lifecycle(), ["start A", "end B cancelled", "end A cancelled"], lector.context)

        // Bad values are refused: names the CLI knows as usage errors (64) before anything is
        // sent, the rest by the daemon with its error name (1); nothing is heard.
        let since = Date()
        let roman = try lector.session.run(cli, ["say", "--digits", "roman", "12"], timeout: 20)
        XCTAssertEqual(roman.status, 64, "\(roman)")
        XCTAssertTrue(roman.stderr.contains("--digits must be one of number, digits, currency"), "\(roman)")
        let badSSML = try lector.session.run(cli, ["say", "--ssml", "<speak>Hello <b>world</b></speak>"], timeout: 20)
        XCTAssertEqual(badSSML.status, 1, "\(badSSML)")
        XCTAssertTrue(badSSML.stderr.contains("SSML"), "\(badSSML)")
        let badPriority = try lector.session.run(cli, ["say", "--priority", "urgent", "hi"], timeout: 20)
        XCTAssertEqual(badPriority.status, 64, "\(badPriority)")
        XCTAssertTrue(badPriority.stderr.contains("--priority must be one of important"), "\(badPriority)")
        let romanOnTheBus = try lector.call("Speak", ["'12'", "{'digits': <'roman'>}"])
        lector.assertError(romanOnTheBus, "InvalidArgument", "digits roman over the bus")
        XCTAssertNil(lector.recording.firstSound(after: since), "a refused speech was heard")

        // --wait with a priority: the notification is spoken when alone, and say waits for it.
        let waited = try lector.session.run(cli, ["say", "--wait", "--priority", "notification", "--ssml",
                                                  "<speak>Done <break time=\"100ms\"/> here.</speak>"], timeout: 20)
        XCTAssertEqual(waited.status, 0, "\(waited)")
        XCTAssertNotNil(lector.recording.firstSound(after: since), "not heard")
    }
}

/// Many calls from one connection (one sender), which gdbus/busctl cannot do: a unix socket,
/// SASL EXTERNAL, Hello, then `Speak(s, a{sv})` calls marshalled by hand (little-endian, protocol 1),
/// pipelined if wanted. Only what these tests need (file-private: other suites may have their own).
private final class RawBusConnection {
    enum Option {
        case string(String)
        case bool(Bool)
    }

    struct Reply: CustomStringConvertible {
        let isError: Bool
        let errorName: String?
        let errorMessage: String
        let signature: String
        let body: [UInt8]

        /// The id of a successful Speak.
        var id: UInt64? {
            guard !isError, signature == "t", body.count >= 8 else { return nil }
            return body[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }

        var description: String {
            isError ? "error \(errorName ?? "?"): \(errorMessage)" : "reply \(signature) \(id.map(String.init) ?? "")"
        }
    }

    private let descriptor: Int32
    private var serial: UInt32 = 0
    private var inbox: [UInt8] = []
    private var replies: [UInt32: Reply] = [:]

    init(address: String) throws {
        guard let path = address.split(separator: ",").lazy.compactMap({ part -> String? in
            let text = part.hasPrefix("unix:") ? part.dropFirst(5) : part
            return text.hasPrefix("path=") ? String(text.dropFirst(5)) : nil
        }).first else { throw TestKitError.failed("unsupported bus address \(address)") }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestKitError.failed("socket: \(errno)") }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: socketAddress.sun_path) else {
            close(descriptor)
            throw TestKitError.failed("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestKitError.failed("connect \(path): \(errno)")
        }
        do {
            let hexUID = String(getuid()).utf8.map { String(format: "%02x", $0) }.joined()
            try writeAll([0] + Array("AUTH EXTERNAL \(hexUID)\r\n".utf8))
            let answer = try readLine()
            guard answer.hasPrefix("OK") else { throw TestKitError.failed("bus refused authentication: \(answer)") }
            try writeAll(Array("BEGIN\r\n".utf8))
            let hello = try reply(to: try sendMessage(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                               interface: "org.freedesktop.DBus", member: "Hello", signature: "", body: []))
            if hello.isError { throw TestKitError.failed("Hello: \(hello)") }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// Sends `Speak(text, options)` without waiting; collect the answer with `reply(to:)`.
    func sendSpeak(_ text: String, _ options: [String: Option]) throws -> UInt32 {
        var body = Marshaller()
        body.appendString(text)
        body.appendUInt32(0)
        let lengthAt = body.bytes.count - 4
        body.align(8)
        let start = body.bytes.count
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            body.align(8)
            body.appendString(key)
            switch value {
            case .string(let text):
                body.appendSignature("s")
                body.appendString(text)
            case .bool(let flag):
                body.appendSignature("b")
                body.appendUInt32(flag ? 1 : 0)
            }
        }
        let length = UInt32(body.bytes.count - start)
        withUnsafeBytes(of: length.littleEndian) { body.bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0) }
        return try sendMessage(destination: LectorFixture.service, path: LectorFixture.objectPath, interface: LectorFixture.interface,
                        member: "Speak", signature: "sa{sv}", body: body.bytes)
    }

    /// Speak and wait for its answer.
    func speak(_ text: String, _ options: [String: Option]) throws -> Reply {
        try reply(to: try sendSpeak(text, options))
    }

    /// The answer to the call `serial` (answers to other calls are kept for later).
    func reply(to serial: UInt32, timeout: TimeInterval = 15) throws -> Reply {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while replies[serial] == nil { try readMessage(deadline: deadline) }
        return replies.removeValue(forKey: serial)!
    }

    private func sendMessage(destination: String, path: String, interface: String, member: String,
                      signature: String, body: [UInt8]) throws -> UInt32 {
        serial += 1
        var message = Marshaller()
        message.bytes = [UInt8(ascii: "l"), 1, 0, 1]
        message.appendUInt32(UInt32(body.count))
        message.appendUInt32(serial)
        var fields = Marshaller(startingAt: 16)
        func field(_ code: UInt8, _ type: String, _ value: String) {
            fields.align(8)
            fields.bytes.append(code)
            fields.appendSignature(type)
            if type == "g" { fields.appendSignature(value) } else { fields.appendString(value) }
        }
        field(1, "o", path)
        field(2, "s", interface)
        field(3, "s", member)
        field(6, "s", destination)
        if !signature.isEmpty { field(8, "g", signature) }
        message.appendUInt32(UInt32(fields.bytes.count))
        message.bytes += fields.bytes
        message.align(8)
        message.bytes += body
        try writeAll(message.bytes)
        return serial
    }

    private func readMessage(deadline: Date) throws {
        try fill(16, deadline: deadline)
        guard inbox[0] == UInt8(ascii: "l") else { throw TestKitError.failed("big-endian message") }
        let bodyLength = Int(Self.uint32(inbox, 4)), fieldsLength = Int(Self.uint32(inbox, 12))
        let headerEnd = (16 + fieldsLength + 7) & ~7
        try fill(headerEnd + bodyLength, deadline: deadline)
        let message = Array(inbox[0..<(headerEnd + bodyLength)])
        inbox.removeFirst(headerEnd + bodyLength)
        var replySerial: UInt32?, errorName: String?, signature = ""
        var offset = 16
        while offset < 16 + fieldsLength {
            offset = (offset + 7) & ~7
            let code = message[offset]
            let typeLength = Int(message[offset + 1])
            let type = String(decoding: message[(offset + 2)..<(offset + 2 + typeLength)], as: UTF8.self)
            offset += 2 + typeLength + 1
            switch type {
            case "s", "o":
                offset = (offset + 3) & ~3
                let length = Int(Self.uint32(message, offset))
                let value = String(decoding: message[(offset + 4)..<(offset + 4 + length)], as: UTF8.self)
                offset += 4 + length + 1
                if code == 4 { errorName = value }
            case "g":
                let length = Int(message[offset])
                signature = String(decoding: message[(offset + 1)..<(offset + 1 + length)], as: UTF8.self)
                offset += 1 + length + 1
            case "u":
                offset = (offset + 3) & ~3
                if code == 5 { replySerial = Self.uint32(message, offset) }
                offset += 4
            default:
                throw TestKitError.failed("unexpected header field type \(type)")
            }
        }
        guard let replySerial, message[1] == 2 || message[1] == 3 else { return }   // signals etc.
        let body = Array(message[headerEnd...])
        var errorMessage = ""
        if message[1] == 3, signature.hasPrefix("s"), body.count >= 4 {
            let length = Int(Self.uint32(body, 0))
            if body.count >= 4 + length { errorMessage = String(decoding: body[4..<(4 + length)], as: UTF8.self) }
        }
        replies[replySerial] = Reply(isError: message[1] == 3, errorName: errorName, errorMessage: errorMessage,
                                     signature: signature, body: body)
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    private func fill(_ count: Int, deadline: Date) throws {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while inbox.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestKitError.timedOut("no answer from the bus in time") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw TestKitError.failed("bus connection closed") }
            inbox += buffer[0..<got]
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw TestKitError.failed("write to the bus: \(errno)") }
            sent += result
        }
    }

    private func readLine() throws -> String {
        let deadline = Date(timeIntervalSinceNow: 5)
        while true {
            if let newline = inbox.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: inbox[..<newline], as: UTF8.self)
                inbox.removeFirst(newline + 1)
                return line.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try fill(inbox.count + 1, deadline: deadline)
        }
    }

    /// Little-endian marshalling; alignment counts from `base` (where these bytes sit in the message).
    private struct Marshaller {
        var bytes: [UInt8] = []
        let base: Int

        init(startingAt base: Int = 0) { self.base = base }

        mutating func align(_ boundary: Int) {
            while (base + bytes.count) % boundary != 0 { bytes.append(0) }
        }

        mutating func appendUInt32(_ value: UInt32) {
            align(4)
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }

        mutating func appendString(_ value: String) {
            appendUInt32(UInt32(value.utf8.count))
            bytes += Array(value.utf8) + [0]
        }

        mutating func appendSignature(_ value: String) {
            bytes += [UInt8(value.utf8.count)] + Array(value.utf8) + [0]
        }
    }
}
