import Foundation
import LectorTestKit
import XCTest

/// One private session (bus + PulseAudio + XDG dirs) with `lector serve` in it, a recorder on
/// the sink's monitor and a watcher on every signal of the MPRIS name (which also carries
/// Narrator1's SpeakingRange: one connection owns both names). Everything runs through the
/// session: never Foundation.Process while it is up.
final class PlayerFixture {
    static let mprisName = "org.mpris.MediaPlayer2.lector"
    static let mprisPath = "/org/mpris/MediaPlayer2"
    static let root = "org.mpris.MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let narratorPath = "/io/github/lector/Lector1"
    static let narrator = "io.github.lector.Narrator1"
    static let errorPrefix = "io.github.lector.Error."

    let session: TestSession
    let recording: MonitorRecording
    /// The current daemon (and the earlier ones, for failure messages).
    private(set) var daemons: [ManagedProcess] = []
    private(set) var watcher: SignalWatcher!
    var daemon: ManagedProcess { daemons[daemons.count - 1] }
    var lector: String { LectorExecutable.path }

    init() throws {
        let session = try TestSession()
        self.session = session
        do {
            recording = try session.record()
            try startDaemon()
        } catch {
            session.shutdown()
            throw error
        }
    }

    func shutdown() { session.shutdown() }

    /// Starts `lector serve`, waits for the MPRIS name and watches its signals (a new watcher,
    /// subscribed before this returns, so nothing the new daemon says is missed).
    func startDaemon(environment: [String: String] = [:]) throws {
        let started = try session.spawn(lector, ["serve"], extraEnvironment: ["LECTOR_LOG": "stderr"].merging(environment) { $1 })
        daemons.append(started)
        do {
            try session.waitForBusName(Self.mprisName, timeout: 15)
        } catch {
            throw FixtureError("lector serve did not take \(Self.mprisName): \(error)\ndaemon said:\n\(started.output)")
        }
        watcher?.stop()
        watcher = try session.watchSignals(from: Self.mprisName)
        guard watcher.waitUntilSubscribed(timeout: 10) else {
            throw FixtureError("gdbus monitor did not subscribe:\n\(watcher.transcript)")
        }
    }

    /// Undoes what a test may have changed, so tests of one class sharing a daemon stay independent.
    func reset() throws {
        _ = try setProperty("Rate", "d", "1.0")
        _ = try setProperty("LoopStatus", "s", "None")
        _ = try setProperty("Volume", "d", "1.0")
    }

    /// Daemon logs and the last signals seen: attached to failure messages.
    var context: String {
        let lines = watcher.transcript.split(separator: "\n").suffix(40).map { String($0.prefix(400)) }
        let logs = daemons.enumerated().map { "--- daemon \($0.offset + 1) (running: \($0.element.isRunning)) ---\n\($0.element.output)" }
        return "\n" + logs.joined(separator: "\n") + "\n--- last signals ---\n" + lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Tools, run inside the session

    @discardableResult
    func playerctl(_ arguments: String...) throws -> ProcessResult {
        try session.run("playerctl", ["-p", "lector"] + arguments, timeout: 10)
    }

    /// The `lector` CLI.
    func cli(_ arguments: String...) throws -> ProcessResult {
        try session.run(lector, arguments, timeout: 30)
    }

    func busctl(_ arguments: [String]) throws -> ProcessResult {
        try session.run("busctl", ["--user"] + arguments, timeout: 10)
    }

    /// `gdbus call` (its errors carry the D-Bus error name, busctl's do not).
    func call(_ interface: String, _ method: String, _ arguments: [String] = [],
              path: String = mprisPath) throws -> ProcessResult {
        try session.run("gdbus", ["call", "--session", "--dest", Self.mprisName, "--object-path", path,
                                  "--method", "\(interface).\(method)"] + arguments, timeout: 30)
    }

    /// `busctl call` with an explicit signature (object paths, arrays).
    func busCall(_ interface: String, _ method: String, _ signatureAndArguments: [String],
                 path: String = mprisPath) throws -> ProcessResult {
        // "--": an argument like -5 is a value, not an option.
        try busctl(["call", "--", Self.mprisName, path, interface, method] + signatureAndArguments)
    }

    /// GVariant text for a string.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    // MARK: - Properties

    /// A property as busctl's JSON gives it: its D-Bus type and decoded value.
    func property(_ name: String, interface: String = player, path: String = mprisPath) throws -> (type: String, data: Any) {
        let result = try busctl(["--json=short", "get-property", Self.mprisName, path, interface, name])
        guard result.succeeded else { throw FixtureError("get-property \(interface).\(name): \(result)") }
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        guard let dictionary = object as? [String: Any], let type = dictionary["type"] as? String,
              let data = dictionary["data"] else {
            throw FixtureError("unexpected busctl output for \(name): \(result.stdout)")
        }
        return (type, data)
    }

    func string(_ name: String, interface: String = player) throws -> String {
        let value = try property(name, interface: interface)
        guard let text = value.data as? String else { throw FixtureError("\(name) is \(value), not a string") }
        return text
    }

    func bool(_ name: String, interface: String = player) throws -> Bool {
        let value = try property(name, interface: interface)
        guard value.type == "b", let flag = value.data as? Bool else { throw FixtureError("\(name) is \(value), not a b") }
        return flag
    }

    func double(_ name: String) throws -> Double {
        let value = try property(name)
        guard value.type == "d", let number = value.data as? NSNumber else { throw FixtureError("\(name) is \(value), not a d") }
        return number.doubleValue
    }

    /// Position in microseconds (normal-rate).
    func position() throws -> Int64 {
        let value = try property("Position")
        guard value.type == "x", let number = value.data as? NSNumber else { throw FixtureError("Position is \(value), not an x") }
        return number.int64Value
    }

    /// Lets narration go on until Position has moved `seconds` further (polling, at most 10 s
    /// more): a test that needs some listening behind it waits for that, not for a fixed time.
    func playOn(_ seconds: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        let from = try position()
        let target = from + Int64(seconds * 1e6)
        XCTAssertTrue(try poll(timeout: seconds + 10) { try position() >= target },
                      "Position did not move \(seconds) s on from \(from) µs\(context)", file: file, line: line)
    }

    /// Position read around `Date()`: the value and the middle of the call (busctl takes a few ms).
    func timedPosition() throws -> (microseconds: Int64, at: Date) {
        let before = Date()
        let value = try position()
        let after = Date()
        return (value, before.addingTimeInterval(after.timeIntervalSince(before) / 2))
    }

    func status() throws -> String { try string("PlaybackStatus") }

    /// Metadata: key → (type, value).
    func metadata() throws -> [String: (type: String, data: Any)] {
        let value = try property("Metadata")
        guard value.type == "a{sv}", let dictionary = value.data as? [String: Any] else {
            throw FixtureError("Metadata is \(value)")
        }
        var entries: [String: (type: String, data: Any)] = [:]
        for (key, entry) in dictionary {
            guard let variant = entry as? [String: Any], let type = variant["type"] as? String, let data = variant["data"] else {
                throw FixtureError("Metadata entry \(key) is \(entry)")
            }
            entries[key] = (type, data)
        }
        return entries
    }

    func trackNumber() throws -> Int {
        guard let number = try metadata()["xesam:trackNumber"]?.data as? NSNumber else { throw FixtureError("no xesam:trackNumber") }
        return number.intValue
    }

    func trackID() throws -> String {
        guard let id = try metadata()["mpris:trackid"]?.data as? String else { throw FixtureError("no mpris:trackid") }
        return id
    }

    func length() throws -> Int64 {
        guard let number = try metadata()["mpris:length"]?.data as? NSNumber else { throw FixtureError("no mpris:length") }
        return number.int64Value
    }

    func setProperty(_ name: String, _ signature: String, _ value: String, interface: String = player) throws -> ProcessResult {
        try busctl(["set-property", Self.mprisName, Self.mprisPath, interface, name, signature, value])
    }

    // MARK: - Books

    /// Narrator1.Open, which must succeed (the reply comes once the book is applied).
    /// Returns when it was called. `chapter` is 0-based, like the bus option.
    @discardableResult
    func open(_ url: URL, chapter: Int? = nil, fromStart: Bool = true, play: Bool = true,
              file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        var options: [String] = []
        if let chapter { options.append("'chapter': <uint32 \(chapter)>") }
        if fromStart { options.append("'from-start': <true>") }
        if !play { options.append("'play': <false>") }
        let called = Date()
        let result = try openCall(url.absoluteString, options: "{" + options.joined(separator: ", ") + "}")
        guard result.succeeded else {
            XCTFail("Open \(url.lastPathComponent) failed: \(result)\(context)", file: file, line: line)
            throw FixtureError("Open failed: \(result)")
        }
        return called
    }

    func openCall(_ uri: String, options: String = "{}") throws -> ProcessResult {
        try call(Self.narrator, "Open", [Self.quoted(uri), options], path: Self.narratorPath)
    }

    /// Opens `url` and waits until it is Playing and heard; the time of the Open call.
    @discardableResult
    func openAndHear(_ url: URL, chapter: Int? = nil, fromStart: Bool = true,
                     file: StaticString = #filePath, line: UInt = #line) throws -> Date {
        let called = try open(url, chapter: chapter, fromStart: fromStart, file: file, line: line)
        XCTAssertEqual(try status(), "Playing", "after Open\(context)", file: file, line: line)
        guard sound(after: called, timeout: 5) != nil else {
            XCTFail("Open \(url.lastPathComponent): nothing heard within 5 s\(context)", file: file, line: line)
            throw FixtureError("not heard")
        }
        return called
    }

    /// The first sound after each silence of at least `afterSilence` seconds between `start` and
    /// `end` on the sink's monitor (waits until `end` has been recorded).
    func soundOnsets(from start: Date, to end: Date, afterSilence gap: TimeInterval) -> [Date] {
        let recorded = end.addingTimeInterval(0.1)
        if recorded > Date() { Thread.sleep(until: recorded) }
        var onsets: [Date] = []
        var cursor = start
        while let onset = recording.firstSound(after: cursor), onset < end {
            onsets.append(onset)
            var last = onset
            while let next = recording.firstSound(after: last.addingTimeInterval(0.002)), next < end,
                  next.timeIntervalSince(last) < gap {
                last = max(next, last.addingTimeInterval(0.002))
            }
            cursor = last.addingTimeInterval(0.002)
        }
        return onsets
    }

    /// Asserts that a gdbus call failed with `io.github.lector.Error.<name>`.
    func assertError(_ result: ProcessResult, _ name: String, _ what: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.succeeded, "\(what): expected \(name), but the call succeeded: \(result)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains("GDBus.Error:\(Self.errorPrefix)\(name):"),
                      "\(what): expected error \(Self.errorPrefix)\(name), got: \(result)", file: file, line: line)
    }

    var bookmarkDirectory: URL {
        URL(fileURLWithPath: session.environment["XDG_STATE_HOME"]!).appendingPathComponent("lector/bookmarks", isDirectory: true)
    }

    /// The bookmark file of the book with `identity`, and its decoded chapter and offset.
    func bookmark(of identity: String) -> (file: URL, chapter: Int, offset: Int)? {
        let files = (try? FileManager.default.contentsOfDirectory(at: bookmarkDirectory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == "json" {
            guard let data = try? Data(contentsOf: file),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  object["bookIdentity"] as? String == identity,
                  let chapter = (object["chapter"] as? NSNumber)?.intValue,
                  let offset = (object["offset"] as? NSNumber)?.intValue else { continue }
            return (file, chapter, offset)
        }
        return nil
    }

    /// The narration stream on the sound server (media.name "Lector narration"), if there is one.
    func narrationStream() throws -> PlaybackStreamInfo? {
        try session.playbackStreams().first { $0.mediaName == "Lector narration" }
    }

    /// The start offset of the last word announced (SpeakingRange) since `since`.
    func lastHeardOffset(since: Date) -> Int? {
        signals("SpeakingRange", since: since).last.flatMap { $0.arguments.count > 1 ? Int($0.arguments[1]) : nil }
    }

    var coverDirectory: URL {
        URL(fileURLWithPath: session.environment["XDG_CACHE_HOME"]!).appendingPathComponent("lector/covers", isDirectory: true)
    }

    // MARK: - Signals

    /// Signals named `member` that arrived at or after `since`.
    func signals(_ member: String, since: Date) -> [ObservedSignal] {
        watcher.signals(named: member).filter { $0.receivedAt >= since }
    }

    func waitForSignal(_ member: String, since: Date, timeout: TimeInterval,
                       where predicate: (ObservedSignal) -> Bool = { _ in true }) -> ObservedSignal? {
        watcher.wait(timeout: timeout) { $0.member == member && $0.receivedAt >= since && predicate($0) }
    }

    /// PropertiesChanged on org.mpris.MediaPlayer2.Player since `since`.
    func playerChanges(since: Date) -> [ObservedSignal] {
        signals("PropertiesChanged", since: since).filter { $0.path == Self.mprisPath && $0.arguments.first == Self.player }
    }

    /// Waits for a PropertiesChanged on Player carrying `name`, whose value text satisfies `value`.
    func waitForChange(_ name: String, since: Date, timeout: TimeInterval,
                       value: (String) -> Bool = { _ in true }) -> ObservedSignal? {
        waitForSignal("PropertiesChanged", since: since, timeout: timeout) { signal in
            guard signal.path == Self.mprisPath, signal.arguments.first == Self.player,
                  let text = Self.changed(signal)[name] else { return false }
            return value(text)
        }
    }

    /// The changed properties of a PropertiesChanged signal: name → GVariant text of the value
    /// (the inside of its `<…>`), e.g. ["PlaybackStatus": "'Paused'"].
    static func changed(_ signal: ObservedSignal) -> [String: String] {
        guard signal.arguments.count >= 2 else { return [:] }
        var text = Substring(signal.arguments[1].trimmingCharacters(in: .whitespaces))
        guard text.hasPrefix("{"), text.hasSuffix("}") else { return [:] }
        text = text.dropFirst().dropLast()
        var result: [String: String] = [:]
        for element in GVariantText.splitTopLevel(String(text)) {
            guard let colon = element.range(of: "': <"), element.hasPrefix("'"), element.hasSuffix(">") else { continue }
            let key = String(element[element.index(after: element.startIndex)..<colon.lowerBound])
            let value = String(element[colon.upperBound..<element.index(before: element.endIndex)])
            result[key] = value
        }
        return result
    }

    /// First capture of `pattern` in `text`.
    static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              match.numberOfRanges > 1, let range = Range(match.range(at: 1), in: text) else { return nil }
        return String(text[range])
    }

    // MARK: - Sound

    /// First sound at or after `instant` (which may be in the future), within `timeout` of now.
    func sound(after instant: Date, timeout: TimeInterval) -> Date? {
        if instant > Date() { Thread.sleep(until: instant) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var from = instant
        // A chunk arriving just after `instant` holds samples dated just before it: skip those.
        while let found = recording.waitForSound(after: from, timeout: max(0, deadline.timeIntervalSinceNow)) {
            if found >= instant { return found }
            from = found.addingTimeInterval(1 / Double(MonitorRecording.sampleRate))
            if Date() >= deadline { break }
        }
        return nil
    }

    /// The longest stretch without sound between `start` and `end` (waits until `end` is recorded).
    func longestSilence(from start: Date, to end: Date) -> TimeInterval {
        let recorded = end.addingTimeInterval(0.1)
        if recorded > Date() { Thread.sleep(until: recorded) }
        var cursor = start
        var longest = 0.0
        while cursor < end {
            guard let next = recording.firstSound(after: cursor), next < end else {
                longest = max(longest, end.timeIntervalSince(cursor))
                break
            }
            // A sample found "after" the cursor can be dated a little before it (chunk timing):
            // always move on, by at least 2 ms.
            longest = max(longest, next.timeIntervalSince(cursor))
            cursor = max(cursor, next).addingTimeInterval(0.002)
        }
        return longest
    }
}

/// A test class whose tests share one daemon (started by the first test, ended after the last).
/// Each test opens the book it needs, from the start; `reset()` undoes Rate, LoopStatus and Volume.
class SharedDaemonTestCase: XCTestCase {
    nonisolated(unsafe) private static var fixtures: [ObjectIdentifier: PlayerFixture] = [:]
    var fixture: PlayerFixture!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let key = ObjectIdentifier(type(of: self))
        if let existing = Self.fixtures[key], existing.daemon.isRunning {
            fixture = existing
        } else {
            Self.fixtures.removeValue(forKey: key)?.shutdown()
            fixture = try PlayerFixture()
            Self.fixtures[key] = fixture
        }
        try fixture.reset()
    }

    override func tearDown() {
        fixture = nil
        super.tearDown()
    }

    override class func tearDown() {
        fixtures.removeValue(forKey: ObjectIdentifier(self))?.shutdown()
        super.tearDown()
    }
}


extension Date {
    /// "+1.234 s" relative to `reference`, for failure messages.
    func relative(to reference: Date) -> String { String(format: "%+.3f s", timeIntervalSince(reference)) }
}
