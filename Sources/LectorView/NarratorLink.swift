import Foundation
import LectorBus
import LectorCore
import LectorInterface
import LectorLoop

/// The read-along server's side of the bus: a client of the daemon like playerctl. It follows
/// the narrator (properties, `SpeakingRange`, the daemon coming and going) and tells the pages
/// through `ViewEvents`; it forwards the pages' requests as method calls.
///
/// Never starts the daemon (`autoStart: false`): a page shows "Lector is not running" until the
/// listener starts it, and follows it again when it is back.
///
///     let link = NarratorLink(bus: bus, events: events)
///     try link.start()                                      // a first read of the narrator's state
///     link.pagesChanged(1)                                  // a page opened: follow the narrator
///     let markup = try await link.chapterMarkup(3)          // for GET /api/chapter/3
@MainActor
public final class NarratorLink {
    private let bus: Bus
    private let events: ViewEvents
    public private(set) var snapshot = ViewSnapshot()
    /// The daemon's cover file (from Narrator1.Book); served as /cover, never a path a page names.
    public private(set) var coverFile: URL?
    /// The read in progress (`refresh`), and whether another must follow it / must tell the pages.
    private var refreshTask: Task<Void, Never>?
    private var refreshAgain = false
    private var announceNext = false

    public init(bus: Bus, events: ViewEvents) {
        self.bus = bus
        self.events = events
    }

    /// The narrator is followed (its property changes, the daemon coming and going, the heard
    /// words) only while a page is open: with none, nothing the narrator does wakes this process.
    /// The snapshot is then read when a page opens or asks (`currentSnapshot()`).
    private var followMatches: [BusMatch] = []
    private var following: Bool { !followMatches.isEmpty }

    /// A first read, so that the first page and /api/state find the narrator's state at once.
    public func start() throws {
        refresh()
    }

    // MARK: - Following the narrator

    /// Pages are open (`count` > 0): follow the narrator, and tell the new page where it is;
    /// none: stop following, and forget the state the pages were told (it goes stale).
    public func pagesChanged(_ count: Int) {
        if count > 0, !following {
            let properties = "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path="
            let rules = [properties + "'\(MPRISNames.path)'", properties + "'\(BusNames.objectPath)'",
                         "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                            + "member='NameOwnerChanged',arg0='\(MPRISNames.service)'"]
            do {
                for rule in rules {
                    followMatches.append(try bus.addRemovableMatch(rule) { [weak self] _ in self?.refresh() })
                }
                followMatches.append(try bus.addRemovableMatch("type='signal',interface='\(MPRISNames.narrator)',member='SpeakingRange'") {
                    [weak self] message in self?.spoke(message)
                })
            } catch {
                stopFollowing()   // the bus is going away: nothing to follow
                return
            }
            refresh(announce: true)
        } else if count == 0, following {
            stopFollowing()
        }
    }

    private func stopFollowing() {
        for match in followMatches { match.cancel() }
        followMatches = []
        events.forgetState()
    }

    /// The word heard now: straight to the pages, stamped with when it arrived (for the bench).
    private func spoke(_ message: MessageReader) {
        guard let track = try? message.readObjectPath(), let start = try? message.readUInt32(),
              let length = try? message.readUInt32() else { return }
        let chapter = track.range(of: "/c", options: .backwards).flatMap { Int(track[$0.upperBound...]) } ?? -1
        let received = Date().timeIntervalSince1970 * 1000
        events.publish("range", #"{"track":"\#(track)","chapter":\#(chapter),"start":\#(start),"length":\#(length),"received":\#(received)}"#)
    }

    /// Reads the narrator's properties again and tells the pages if anything changed (or if
    /// `announce`: a page just opened). Signals arriving meanwhile fold into one more read.
    public func refresh(announce: Bool = false) {
        announceNext = announceNext || announce
        guard refreshTask == nil else {
            refreshAgain = true
            return
        }
        refreshTask = Task { @MainActor in
            repeat {
                refreshAgain = false
                let next = await readSnapshot()
                let changed = next != snapshot
                if next.book?.url != snapshot.book?.url {
                    markups = [:]   // another book (or none): its chapters are not these
                    markupOrder = []
                }
                snapshot = next
                if following, changed || announceNext, let json = try? String(decoding: JSONEncoder().encode(next), as: UTF8.self) {
                    announceNext = false
                    events.publish("state", json)
                }
            } while refreshAgain
            refreshTask = nil
        }
    }

    /// The narrator's state now: read again first unless pages follow it (then it is current).
    public func currentSnapshot() async -> ViewSnapshot {
        if !following { refresh() }
        await refreshTask?.value
        return snapshot
    }

    private func readSnapshot() async -> ViewSnapshot {
        var next = ViewSnapshot()
        do {
            next.status = try await property(MPRISNames.player, "PlaybackStatus", on: MPRISNames.path)
            next.rate = Double(try await property(MPRISNames.player, "Rate", on: MPRISNames.path)) ?? 1
            next.pausedBecause = try await property(MPRISNames.narrator, "PausedBecause", on: BusNames.objectPath)
            let book = try await call(MPRISNames.narrator, "org.freedesktop.DBus.Properties", "Get", on: BusNames.objectPath) {
                try $0.append(MPRISNames.narrator)
                try $0.append("Book")
            }.readDisplayDictionary()
            next.running = true
            if let title = book["title"], let count = book["chapter-count"].flatMap(Int.init) {
                let cover = book["cover"].flatMap(URL.init(string:)).flatMap { $0.isFileURL ? $0 : nil }
                coverFile = cover
                next.book = .init(title: title, authors: book["authors"] ?? "",
                                  chapter: book["chapter"].flatMap(Int.init) ?? 0, chapterCount: count,
                                  url: book["url"] ?? "", hasCover: cover != nil, language: book["language"] ?? "",
                                  voice: try await property(MPRISNames.narrator, "Voice", on: BusNames.objectPath),
                                  // A daemon older than this server has no BookVoices: the page then offers no choice.
                                  voices: (try? await bookVoices()) ?? [])
            } else {
                coverFile = nil
            }
        } catch {
            next = ViewSnapshot()   // not running (or not answering): the page says so
            coverFile = nil
        }
        return next
    }

    /// Narrator1.BookVoices: the voices that can read the open book.
    private func bookVoices() async throws -> [ViewVoice] {
        let reply = try await call(MPRISNames.narrator, "org.freedesktop.DBus.Properties", "Get", on: BusNames.objectPath) {
            try $0.append(MPRISNames.narrator)
            try $0.append("BookVoices")
        }
        return try reply.readVariant("a(ssss)") {
            try reply.readStructArray("ssss") {
                ViewVoice(name: try reply.readString(), language: try reply.readString(), engine: try reply.readString(),
                          quality: try reply.readString())
            }
        }
    }

    private func property(_ interface: String, _ name: String, on path: String) async throws -> String {
        try await call(interface, "org.freedesktop.DBus.Properties", "Get", on: path) {
            try $0.append(interface)
            try $0.append(name)
        }.readDisplayVariant()
    }

    // MARK: - The pages' requests

    public func chapters() async throws -> [ViewChapter] {
        let reply = try await call(MPRISNames.narrator, MPRISNames.narrator, "GetChapters", on: BusNames.objectPath)
        return try reply.readStructArray("sut") {
            ViewChapter(title: try reply.readString(), depth: Int(try reply.readUInt32()),
                        seconds: Double(try reply.readUInt64()) / 1e6)
        }
    }

    /// A chapter's markup. The last few are kept (a reloaded page asks again), and the next
    /// chapter is fetched ahead, so a chapter change shows without waiting for the daemon.
    public func chapterMarkup(_ chapter: Int) async throws -> ViewChapterMarkup {
        let book = await currentSnapshot().book?.url ?? ""
        let markup = try await cachedMarkup(chapter, book: book)
        if let count = snapshot.book?.chapterCount, chapter + 1 < count, snapshot.book?.url == book {
            Task { @MainActor in _ = try? await self.cachedMarkup(chapter + 1, book: book) }
        }
        return markup
    }

    private var markups: [String: Task<ViewChapterMarkup, any Error>] = [:]
    private var markupOrder: [String] = []

    private func cachedMarkup(_ chapter: Int, book: String) async throws -> ViewChapterMarkup {
        let key = "\(chapter)#\(book)"
        if let known = markups[key] { return try await known.value }
        let fetch = Task { @MainActor in
            let reply = try await self.call(MPRISNames.narrator, MPRISNames.narrator, "GetChapterMarkup", on: BusNames.objectPath,
                                            timeout: 60_000_000) { try $0.append(UInt32(clamping: chapter)) }
            let trackID = try reply.readObjectPath(), html = try reply.readString()
            return ViewChapterMarkup(chapter: chapter, trackID: trackID, html: html,
                                     sentences: await self.sentences(ofChapter: chapter))
        }
        markups[key] = fetch
        markupOrder.append(key)
        if markupOrder.count > 4 { markups[markupOrder.removeFirst()] = nil }
        do {
            return try await fetch.value
        } catch {
            markups[key] = nil   // not kept: the next ask tries again
            throw error
        }
    }

    /// The chapter's sentences, cut from its text (Narrator1.GetChapterText) by narration's own
    /// segmenter; none if the text cannot be had.
    private func sentences(ofChapter chapter: Int) async -> [[Int]] {
        guard let reply = try? await call(MPRISNames.narrator, MPRISNames.narrator, "GetChapterText", on: BusNames.objectPath,
                                          timeout: 60_000_000, { try $0.append(UInt32(clamping: chapter)) }),
              (try? reply.readObjectPath()) != nil, let text = try? reply.readString()
        else { return [] }
        // Off the main actor: a long chapter takes a while to cut.
        return await Task.detached { TextSegmenter(text).sentences().map { [$0.lowerBound, $0.upperBound] } }.value
    }

    /// An image of the open book, by manifest id: (media type, bytes).
    public func resource(_ id: String) async throws -> (mediaType: String, data: [UInt8]) {
        let reply = try await call(MPRISNames.narrator, MPRISNames.narrator, "GetResource", on: BusNames.objectPath) {
            try $0.append(id)
        }
        return (try reply.readString(), try reply.readBytes())
    }

    /// What a page's control does, as the bus calls a media key or `lector` would make.
    public func perform(_ action: ViewAction) async throws {
        switch action {
        case .play: _ = try await player("Play")
        case .pause: _ = try await player("Pause")
        case .playPause: _ = try await player("PlayPause")
        case .next: _ = try await player("Next")
        case .previous: _ = try await player("Previous")
        case .skip(let seconds):
            _ = try await player("Seek") { try $0.append(Int64(seconds * 1e6)) }
        case .rate(let rate):
            _ = try await call(MPRISNames.player, "org.freedesktop.DBus.Properties", "Set", on: MPRISNames.path) { writer in
                try writer.append(MPRISNames.player)
                try writer.append("Rate")
                try writer.container("v", "d") { try writer.append(rate) }
            }
        case .seekToText(let chapter, let offset):
            _ = try await call(MPRISNames.narrator, MPRISNames.narrator, "SeekToText", on: BusNames.objectPath) {
                try $0.append(UInt32(clamping: chapter))
                try $0.append(UInt32(clamping: offset))
            }
        case .voice(let name):
            // Remembered for the book by the daemon, as `lector read --voice` is.
            _ = try await call(MPRISNames.narrator, "org.freedesktop.DBus.Properties", "Set", on: BusNames.objectPath) { writer in
                try writer.append(MPRISNames.narrator)
                try writer.append("Voice")
                try writer.container("v", "s") { try writer.append(name) }
            }
        case .goToChapter(let chapter):
            _ = try await call(MPRISNames.narrator, MPRISNames.narrator, "SeekToText", on: BusNames.objectPath) {
                try $0.append(UInt32(clamping: chapter))
                try $0.append(UInt32(0))
            }
        }
    }

    private func player(_ member: String, _ build: (MessageWriter) throws -> Void = { _ in }) async throws -> MessageReader {
        try await call(MPRISNames.player, MPRISNames.player, member, on: MPRISNames.path, build)
    }

    private func call(_ destinationInterface: String, _ interface: String, _ member: String, on path: String,
                      timeout: UInt64 = 10_000_000,
                      _ build: (MessageWriter) throws -> Void = { _ in }) async throws -> MessageReader {
        // Every interface lives under the MPRIS name; Lector1's name would do as well.
        try await bus.callAsync(destination: MPRISNames.service, path: path, interface: interface, member: member,
                                timeoutMicroseconds: timeout, autoStart: false, build)
    }
}

/// A control on the page, posted as JSON to /api/control:
/// `{"action":"skip","seconds":-15}`, `{"action":"seekToText","chapter":3,"offset":1200}`,
/// `{"action":"voice","voice":"joe"}`.
public enum ViewAction: Sendable, Equatable {
    case play, pause, playPause, next, previous
    case skip(seconds: Double)
    case rate(Double)
    case seekToText(chapter: Int, offset: Int)
    case goToChapter(Int)
    /// Narrator1.Voice: one of the book's voices (the daemon says UnknownVoice to any other).
    case voice(String)

    struct Request: Decodable {
        var action: String
        var seconds: Double?
        var rate: Double?
        var chapter: Int?
        var offset: Int?
        var voice: String?
    }

    /// Longer than any voice's name (espeak-ng's, or a voice file's): refused before the bus.
    static let maximumVoiceName = 256

    /// Parses the page's JSON; nil for anything it does not know or out of range.
    public static func parse(_ body: [UInt8]) -> ViewAction? {
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(body)) else { return nil }
        switch request.action {
        case "play": return .play
        case "pause": return .pause
        case "playPause": return .playPause
        case "next": return .next
        case "previous": return .previous
        case "skip":
            guard let seconds = request.seconds, seconds.isFinite, abs(seconds) <= 3600 else { return nil }
            return .skip(seconds: seconds)
        case "rate":
            guard let rate = request.rate, rate.isFinite, rate > 0, rate <= 10 else { return nil }
            return .rate(rate)
        case "seekToText":
            guard let chapter = request.chapter, let offset = request.offset, chapter >= 0, offset >= 0,
                  chapter <= Int(UInt32.max), offset <= Int(UInt32.max) else { return nil }
            return .seekToText(chapter: chapter, offset: offset)
        case "goToChapter":
            guard let chapter = request.chapter, chapter >= 0, chapter <= Int(UInt32.max) else { return nil }
            return .goToChapter(chapter)
        case "voice":
            // What D-Bus cannot carry (a NUL, a noncharacter) or no voice is named is refused here.
            guard let name = request.voice, !name.isEmpty, name.unicodeScalars.count <= maximumVoiceName,
                  name.unicodeScalars.allSatisfy({ !$0.properties.isNoncharacterCodePoint && $0.properties.generalCategory != .control })
            else { return nil }
            return .voice(name)
        default: return nil
        }
    }
}
