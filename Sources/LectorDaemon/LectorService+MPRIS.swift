import CSystemd
import Foundation
import LectorBus
import LectorCore
import LectorLoop

/// MPRIS 2.2 and io.github.lector.Narrator1: parse, act on the narrator, reply. Property
/// changes are emitted by `narratorChanged`, from the narrator's own before/after states.
extension LectorService {
    /// MPRIS 2.2 (root, Player, TrackList) and Narrator1, member by member: each handler parses,
    /// acts on the narrator and replies. A listener's action first tells the call tracker, so a
    /// call ending afterwards does not resume by itself.
    func mprisObjects() -> [BusObject] {
        [rootObject(), playerObject(), trackListObject(), narrator1Object()]
    }

    /// org.mpris.MediaPlayer2
    private func rootObject() -> BusObject {
        let members: [BusMember<LectorService>] = [
            .method("Raise") { service, _ in service.raise(); return .done },
            .method("Quit") { service, _ in
                // After the reply: the caller hears back before the bus connection closes.
                LoopInbox.post { [weak service] in service?.requestExit(.quit) }
                return .done
            },
            .property("CanQuit", "b", .constant) { _, reply in try reply.append(true) },
            .property("CanRaise", "b", .constant) { _, reply in try reply.append(true) },
            .property("HasTrackList", "b", .constant) { _, reply in try reply.append(true) },
            .property("Identity", "s", .constant) { _, reply in try reply.append("Lector") },
            .property("DesktopEntry", "s", .constant) { _, reply in try reply.append(MPRISNames.desktopEntry) },
            .property("SupportedUriSchemes", "as", .constant) { _, reply in try reply.appendStrings(["file"]) },
            .property("SupportedMimeTypes", "as", .constant) { _, reply in try reply.appendStrings(MPRISNames.mimeTypes) },
        ]
        return BusObject(path: MPRISNames.path, interface: MPRISNames.root, target: self, members: members)
    }

    /// org.mpris.MediaPlayer2.Player
    private func playerObject() -> BusObject {
        let members: [BusMember<LectorService>] = [
            .method("Next") { service, _ in service.mediaKeyNext(); return .done },
            .method("Previous") { service, _ in service.mediaKeyPrevious(); return .done },
            .method("Pause") { service, _ in service.audioPolicy.listenerActed(pausing: true); service.narrator.pause(); return .done },
            .method("PlayPause") { try $0.playPause($1) },
            .method("Stop") { service, _ in service.audioPolicy.listenerActed(pausing: true); service.narrator.stop(); return .done },
            .method("Play") { service, _ in service.play(); return .done },
            .method("Seek", in: "x", ["Offset"]) { service, call in
                let offset = try call.reader.readInt64()
                service.audioPolicy.listenerActed(pausing: false)
                service.narrator.seek(by: offset)
                return .done
            },
            .method("SetPosition", in: "ox", ["TrackId", "Position"]) { service, call in
                let track = try call.reader.readObjectPath()
                let position = try call.reader.readInt64()
                service.audioPolicy.listenerActed(pausing: false)
                service.narrator.setPosition(position, track: track)
                return .done
            },
            .method("OpenUri", in: "s", ["Uri"]) { service, call in
                let uri = try call.reader.readString()
                service.audioPolicy.listenerActed(pausing: false)
                try service.library.open(uri: uri, options: [:]) { call.deferReply() }
                    return .answered
            },
            .signal("Seeked", "x", ["Position"]),
            .property("PlaybackStatus", "s", .change) { try $1.append($0.narrator.state.status.rawValue) },
            .property("LoopStatus", "s", .change,
                      get: { try $1.append($0.narrator.state.loop.rawValue) },
                      set: { try $0.setLoopStatus($1) }),
            .property("Rate", "d", .change, get: { try $1.append($0.narrator.state.rate) }, set: { try $0.setRate($1) }),
            .property("Metadata", "a{sv}", .change) { try $0.writeCurrentMetadata($1) },
            .property("Volume", "d", .change, get: { try $1.append($0.narrator.state.volume) }, set: { try $0.setVolume($1) }),
            .property("Position", "x", .never) { try $1.append($0.narrator.position) },
            .property("MinimumRate", "d", .constant) { _, reply in try reply.append(PlayerState.rateRange.lowerBound) },
            .property("MaximumRate", "d", .constant) { _, reply in try reply.append(PlayerState.rateRange.upperBound) },
            .property("CanGoNext", "b", .change) { try $1.append($0.narrator.state.canGoNext) },
            .property("CanGoPrevious", "b", .change) { try $1.append($0.narrator.state.canGoPrevious) },
            .property("CanPlay", "b", .change) { try $1.append($0.narrator.state.canPlay) },
            .property("CanPause", "b", .change) { try $1.append($0.narrator.state.canPause) },
            .property("CanSeek", "b", .change) { try $1.append($0.narrator.state.canSeek) },
            .property("CanControl", "b", .constant) { _, reply in try reply.append(true) },
        ]
        return BusObject(path: MPRISNames.path, interface: MPRISNames.player, target: self, members: members)
    }

    /// org.mpris.MediaPlayer2.TrackList
    private func trackListObject() -> BusObject {
        let members: [BusMember<LectorService>] = [
            .method("GetTracksMetadata", in: "ao", ["TrackIds"], out: "aa{sv}", ["Metadata"]) { try $0.tracksMetadata($1) },
            .method("AddTrack", in: "sob", ["Uri", "AfterTrack", "SetAsCurrent"]) { _, _ in
                throw LectorError(.invalidArgument, "the chapter list of a book cannot be edited (CanEditTracks is false)")
            },
            .method("RemoveTrack", in: "o", ["TrackId"]) { _, _ in
                throw LectorError(.invalidArgument, "the chapter list of a book cannot be edited (CanEditTracks is false)")
            },
            .method("GoTo", in: "o", ["TrackId"]) { try $0.goTo($1) },
            .signal("TrackListReplaced", "aoo", ["Tracks", "CurrentTrack"]),
            .signal("TrackAdded", "a{sv}o", ["Metadata", "AfterTrack"]),
            .signal("TrackRemoved", "o", ["TrackId"]),
            .signal("TrackMetadataChanged", "oa{sv}", ["TrackId", "Metadata"]),
            .property("Tracks", "ao", .invalidation) { try $0.writeTracks($1) },
            .property("CanEditTracks", "b", .constant) { _, reply in try reply.append(false) },
        ]
        return BusObject(path: MPRISNames.path, interface: MPRISNames.trackList, target: self, members: members)
    }

    /// io.github.lector.Narrator1 (dbus/io.github.lector.Narrator1.xml)
    private func narrator1Object() -> BusObject {
        let members: [BusMember<LectorService>] = [
            .method("Open", in: "sa{sv}", ["uri", "options"]) { service, call in
                let uri = try call.reader.readString()
                let options = try call.reader.readOptions()
                service.audioPolicy.listenerActed(pausing: false)
                try service.library.open(uri: uri, options: options) { call.deferReply() }
                    return .answered
            },
            .method("Resume") { try $0.resume($1) },
            .method("GetChapterText", in: "u", ["chapter"], out: "os", ["trackid", "text"]) { try $0.chapterText($1) },
            .method("GetChapters", out: "a(sut)", ["chapters"]) { try $0.chapterList($1) },
            .method("GetChapterMarkup", in: "u", ["chapter"], out: "os", ["trackid", "markup"]) { try $0.chapterMarkup($1) },
            .method("GetResource", in: "s", ["id"], out: "say", ["type", "data"]) { service, call in
                try service.library.resource(id: try call.reader.readString(), reply: call.deferReply())
                return .answered
            },
            .method("SeekToText", in: "uu", ["chapter", "offset"]) { try $0.seekToText($1) },
            .signal("SpeakingRange", "ouu", ["trackid", "start", "length"]),
            .property("Book", "a{sv}", .change) { try $0.writeBook($1) },
            .property("PausedBecause", "s", .change) { try $1.append($0.audioPolicy.pausedBecause) },
        ]
        return BusObject(path: BusNames.objectPath, interface: MPRISNames.narrator, target: self,
                         members: members + dailyLoopMembers())
    }

    func registerMPRIS() throws {
        for object in mprisObjects() { try bus.add(object) }
    }

    func narratorChanged(from before: PlayerState) {
        let after = narrator.state
        bus.emitPropertiesChanged(path: MPRISNames.path, interface: MPRISNames.player,
                                  names: PlayerState.changes(from: before, to: after))
        var narratorChanges: [String] = []
        if before.metadataRevision != after.metadataRevision || before.chapterCount != after.chapterCount {
            narratorChanges.append("Book")
        }
        if audioPolicy.pausedBecauseNeedsAnnouncing() { narratorChanges.append("PausedBecause") }
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: narratorChanges)
    }

    // MARK: - handlers

    func playPause(_ call: MethodCall) throws -> MethodResult {
        guard narrator.state.canPause else {
            try resumeForPlayPause()   // the book read last, if there is one
            return .done
        }
        let playing = narrator.state.status == .playing
        audioPolicy.listenerActed(pausing: playing)
        playing ? narrator.pause() : narrator.play()
        return .done
    }

    /// Most metadata one GetTracksMetadata answers: 4 MiB, 6,000 to 10,000 tracks at 400-630
    /// bytes each (title, album, artist, length, cover), far past what a shell lists at once.
    /// Ids are read as their metadata is written, so a client asking for hundreds of thousands
    /// (the same ones over and over) costs its own message and this, not a list of them and a
    /// reply the bus's size (the fuzz took the daemon 50 MB higher that way).
    static let tracksMetadataBytes = 4 << 20

    func tracksMetadata(_ call: MethodCall) throws -> MethodResult {
        .values { [self] reply in
            let writer = MessageWriter(reply.message, budget: MessageBudget(limit: Self.tracksMetadataBytes))
            try writer.container("a", "a{sv}") {
                try call.reader.forEachObjectPath { id in
                    guard let chapter = narrator.book?.chapter(ofTrackID: id) else { return }
                    try writer.container("a", "{sv}") { try writeMetadata(writer, chapter: chapter) }
                }
            }
        }
    }

    func goTo(_ call: MethodCall) throws -> MethodResult {
        let id = try call.reader.readObjectPath()
        audioPolicy.listenerActed(pausing: false)
        guard narrator.book != nil else { throw LectorError(.noBook, "no book is open: Open one first") }
        guard let chapter = narrator.book?.chapter(ofTrackID: id) else {
            throw LectorError(.invalidArgument, "\(id) is not a chapter of the open book")
        }
        narrator.jump(toChapter: chapter, offset: 0, announceSeek: chapter == narrator.state.chapter)
        return .done
    }

    /// A chapter not read yet (they load in order after the one playing) or let go (far from the
    /// listener) is answered when it is read, or with ChapterNotReady after `chapterTextWaitMicroseconds`.
    func chapterText(_ call: MethodCall) throws -> MethodResult {
        let chapter = Int(try call.reader.readUInt32())
        guard let book = narrator.book else { throw LectorError(.noBook, "no book is open: Open one first") }
        guard book.chapterTitles.indices.contains(chapter) else {
            throw LectorError(.invalidArgument, "no chapter \(chapter) in the open book: it has \(book.chapterCount) (0 to \(book.chapterCount - 1))")
        }
        guard book.chapterTexts[chapter] != nil else {
            Journal.log(.debug, "GetChapterText: chapter \(chapter + 1) is not read from the book yet; "
                        + "the reply waits for it (at most \(Self.chapterTextWaitMicroseconds / 1_000_000) s)")
            if chapterTextWaiters.isEmpty { chapterTextTimer?.schedule(after: Self.chapterTextWaitMicroseconds) }
            chapterTextWaiters[chapter, default: []].append(call.deferReply())
            library.loadChapter(chapter)   // let go far from the listener: read again
            return .answered
        }
        return .values { try self.writeChapterText(chapter, $0) }
    }

    private func writeChapterText(_ chapter: Int, _ writer: MessageWriter) throws {
        guard let book = narrator.book, let text = book.chapterTexts[chapter] else {
            throw LectorError(.chapterNotReady, "chapter \(chapter) was let go before it could be sent; ask again")
        }
        try writer.appendObjectPath(book.trackID(chapter))
        try writer.append(text)
    }

    /// A chapter arrived from the background parser: answer who waited for it.
    func chapterLoaded(_ chapter: Int) {
        guard let waiting = chapterTextWaiters.removeValue(forKey: chapter) else { return }
        for reply in waiting { reply.send { try self.writeChapterText(chapter, $0) } }
        if chapterTextWaiters.isEmpty { chapterTextTimer?.cancel() }
    }

    /// Those still waiting get `error` (the wait ran out, or another book was opened).
    func failChapterTextWaiters(_ error: LectorError) {
        let waiting = chapterTextWaiters
        chapterTextWaiters = [:]
        chapterTextTimer?.cancel()
        for (_, replies) in waiting { for reply in replies { reply.fail(error) } }
    }

    func setRate(_ reader: MessageReader) throws {
        let rate = try reader.readDouble()
        guard rate.isFinite else { throw LectorError.invalidArgument("Rate must be a finite number") }
        if rate == 0 { return narrator.pause() }   // the spec: 0 means Pause
        guard PlayerState.rateRange.contains(rate) else {
            throw LectorError.invalidArgument("Rate must be between MinimumRate \(PlayerState.rateRange.lowerBound) and MaximumRate \(PlayerState.rateRange.upperBound), got \(rate)")
        }
        sleepTimer.listenerActed()
        guard narrator.book != nil else { return narrator.setRate(rate) }
        library.choose(rate: rate)   // remembered for this book
    }

    func setVolume(_ reader: MessageReader) throws {
        let volume = try reader.readDouble()
        guard volume.isFinite else { throw LectorError.invalidArgument("Volume must be a finite number") }
        sleepTimer.listenerActed()
        narrator.setVolume(min(1, max(0, volume)))
    }

    func setLoopStatus(_ reader: MessageReader) throws {
        let text = try reader.readString()
        guard let loop = PlayerState.Loop(rawValue: text) else {
            throw LectorError.invalidArgument("LoopStatus must be None, Track or Playlist, got \"\(text)\"")
        }
        narrator.update { $0.loop = loop }
    }

    func writeCurrentMetadata(_ writer: MessageWriter) throws {
        try writer.container("a", "{sv}") {
            if narrator.book != nil {
                try writeMetadata(writer, chapter: narrator.state.chapter)
            } else {
                try writer.entry("mpris:trackid", "o") { try $0.appendObjectPath(noTrackID) }
            }
        }
    }

    func writeTracks(_ writer: MessageWriter) throws {
        try writer.container("a", "o") {
            if let book = narrator.book {
                for chapter in BusText.trackWindow(count: book.chapterCount, current: narrator.state.chapter) {
                    try writer.appendObjectPath(book.trackID(chapter))
                }
            }
        }
    }

    /// Audiobook practice (Cozy, GNOME Podcasts): title = chapter, album = book, artist = authors.
    func writeMetadata(_ writer: MessageWriter, chapter: Int) throws {
        guard let book = narrator.book else { return }
        try writer.entry("mpris:trackid", "o") { try $0.appendObjectPath(book.trackID(chapter)) }
        try writer.entry("xesam:title", "s") { try $0.append(BusText.capped(book.chapterTitles[chapter])) }
        try writer.entry("xesam:album", "s") { try $0.append(BusText.capped(book.title)) }
        if !book.authors.isEmpty {   // a key with no value is left out (plain text has no authors)
            try writer.entry("xesam:artist", "as") { try $0.appendStrings(BusText.cappedList(book.authors)) }
        }
        try writer.entry("xesam:trackNumber", "i") { try $0.append(Int32(chapter + 1)) }
        try writer.entry("xesam:url", "s") { try $0.append(book.url.absoluteString) }
        try writer.entry("mpris:length", "x") { try $0.append(narrator.length(ofChapter: chapter)) }
        if let cover = book.coverURL {
            try writer.entry("mpris:artUrl", "s") { try $0.append(cover.absoluteString) }
        }
    }

    func writeBook(_ writer: MessageWriter) throws {
        try writer.container("a", "{sv}") {
            guard let book = narrator.book else { return }
            try writer.entry("title", "s") { try $0.append(BusText.capped(book.title)) }
            try writer.entry("authors", "as") { try $0.appendStrings(BusText.cappedList(book.authors)) }
            try writer.entry("language", "s") { try $0.append(BusText.capped(book.language ?? "", maxCharacters: 64)) }
            try writer.entry("cover", "s") { try $0.append(book.coverURL?.absoluteString ?? "") }
            try writer.entry("url", "s") { try $0.append(book.url.absoluteString) }
            try writer.entry("chapter-count", "u") { try $0.append(UInt32(book.chapterCount)) }
            try writer.entry("chapter", "u") { try $0.append(UInt32(narrator.state.chapter)) }
            // The whole book, computed when read (not signalled as it advances, as Position).
            if let whole = library.wholeBookProgress {
                try writer.entry("progress", "d") { try $0.append(whole.progress) }
                try writer.entry("time-left", "x") { try $0.append(Int64(whole.timeLeft * 1e6)) }
            }
            try writePronunciation(writer)
        }
    }

    /// A new book: TrackList clients re-read the chapter list.
    func announceTrackListReplaced() {
        guard let book = narrator.book else { return }
        bus.emitPropertiesChanged(path: MPRISNames.path, interface: MPRISNames.trackList, names: ["Tracks"])
        emitSignal(MPRISNames.path, MPRISNames.trackList, "TrackListReplaced") { writer in
            try writer.container("a", "o") {
                for chapter in BusText.trackWindow(count: book.chapterCount, current: narrator.state.chapter) {
                    try writer.appendObjectPath(book.trackID(chapter))
                }
            }
            try writer.appendObjectPath(narrator.trackID)
        }
    }
}
