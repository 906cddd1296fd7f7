import CLectorShim
import CSystemd
import Foundation
import LectorBus
import LectorCore
import LectorLoop

/// MPRIS 2.2 and io.github.lector.Narrator1: parse, act on the narrator, reply. Property
/// changes are emitted by `narratorChanged`, from the narrator's own before/after states.
extension LectorService {
    static let dispatch: lector_dispatch_handlers = lector_dispatch_handlers(
        method: { m, u, e in onLoopThread((m, u, e)) { m, u, e in service(u).mprisMethod(m!, e) } },
        get: { _, _, interface, property, reply, u, e in
            let interface = String(cString: interface!), property = String(cString: property!)
            return onLoopThread((reply, u, e)) { reply, u, e in
                service(u).mprisGet(interface, property, MessageWriter(reply!), e)
            }
        },
        set: { _, _, interface, property, value, u, e in
            let interface = String(cString: interface!), property = String(cString: property!)
            return onLoopThread((value, u, e)) { value, u, e in
                service(u).mprisSet(interface, property, MessageReader(value!), e)
            }
        })

    /// Methods by which the listener takes over: no automatic resume after a call then.
    static let listenerActions: Set<String> = ["Play", "Pause", "PlayPause", "Stop", "Next", "Previous", "Seek",
                                               "SetPosition", "OpenUri", "GoTo", "Open"]

    func registerMPRIS() throws {
        var handlers = Self.dispatch
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try bus.addObject(path: MPRISNames.path, interface: MPRISNames.root,
                          vtable: lector_mpris_root_vtable(&handlers), userdata: userdata)
        try bus.addObject(path: MPRISNames.path, interface: MPRISNames.player,
                          vtable: lector_mpris_player_vtable(&handlers), userdata: userdata)
        try bus.addObject(path: MPRISNames.path, interface: MPRISNames.trackList,
                          vtable: lector_mpris_tracklist_vtable(&handlers), userdata: userdata)
        try bus.addObject(path: BusNames.objectPath, interface: MPRISNames.narrator,
                          vtable: lector_narrator1_vtable(&handlers), userdata: userdata)
        narrator.onStateChange = { [weak self] before in
            guard let self else { return }
            self.narratorChanged(from: before)
            if before.status != .playing, self.narrator.state.status == .playing {
                self.bookmarkTimer.schedule(after: Self.bookmarkSeconds * 1_000_000)
            }
        }
        narrator.onHoldChange = { [weak self] in self?.pausedBecauseMayHaveChanged() }
        narrator.onSeeked = { [weak self] position in
            guard let self else { return }
            self.emitSignal(MPRISNames.path, MPRISNames.player, "Seeked") { try $0.append(position) }
        }
        narrator.onSpeakingRange = { [weak self] (track: String, start: Int, length: Int) in
            guard let self else { return }
            self.emitSignal(BusNames.objectPath, MPRISNames.narrator, "SpeakingRange") {
                try $0.appendObjectPath(track)
                try $0.append(UInt32(start))
                try $0.append(UInt32(length))
            }
        }
    }

    func emitSignal(_ path: String, _ interface: String, _ member: String, _ build: (MessageWriter) throws -> Void) {
        do {
            try bus.emitSignal(path: path, interface: interface, member: member, build)
        } catch {
            Journal.log(.warning, "could not emit \(member): \(error)")
        }
    }

    func narratorChanged(from before: PlayerState) {
        let after = narrator.state
        bus.emitPropertiesChanged(path: MPRISNames.path, interface: MPRISNames.player,
                                  names: PlayerState.changes(from: before, to: after))
        var narratorChanges: [String] = []
        if before.metadataRevision != after.metadataRevision || before.chapterCount != after.chapterCount {
            narratorChanges.append("Book")
        }
        if pausedBecause != policy.announcedPausedBecause {
            policy.announcedPausedBecause = pausedBecause
            narratorChanges.append("PausedBecause")
        }
        bus.emitPropertiesChanged(path: BusNames.objectPath, interface: MPRISNames.narrator, names: narratorChanges)
        if before.status == .playing, after.status != .playing { bookmarkTimer.cancel() }
    }

    // MARK: - methods

    func mprisMethod(_ message: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let reader = MessageReader(message)
        if Self.listenerActions.contains(reader.member), reader.interface != MPRISNames.root {
            let pausing = reader.member == "Pause" || reader.member == "Stop"
                || (reader.member == "PlayPause" && narrator.state.status == .playing)
            listenerActed(pausing: pausing)
        }
        do {
            switch (reader.interface, reader.member) {
            case (MPRISNames.root, "Raise"): break
            case (MPRISNames.root, "Quit"):
                // After the reply: the caller hears back before the bus connection closes.
                LoopInbox.post { [weak self] in self?.requestExit(.quit) }
            case (MPRISNames.player, "Play"): narrator.play()
            case (MPRISNames.player, "Pause"): narrator.pause()
            case (MPRISNames.player, "PlayPause"):
                guard narrator.state.canPause else { throw LectorError(.noBook, "no book is open: nothing to play or pause") }
                narrator.state.status == .playing ? narrator.pause() : narrator.play()
            case (MPRISNames.player, "Stop"): narrator.stop()
            case (MPRISNames.player, "Next"): narrator.next()
            case (MPRISNames.player, "Previous"): narrator.previous()
            case (MPRISNames.player, "Seek"): narrator.seek(by: try reader.readInt64())
            case (MPRISNames.player, "SetPosition"):
                let track = try reader.readObjectPath()
                narrator.setPosition(try reader.readInt64(), track: track)
            case (MPRISNames.player, "OpenUri"):
                return openBook(uri: try reader.readString(), options: [:], message: message, busError)
            case (MPRISNames.trackList, "GetTracksMetadata"):
                let ids = try reader.readObjectPaths()
                return MethodReply.send(to: message) { writer in
                    try writer.container("a", "a{sv}") {
                        for id in ids {
                            guard let chapter = narrator.book?.chapter(ofTrackID: id) else { continue }
                            try writer.container("a", "{sv}") { try writeMetadata(writer, chapter: chapter) }
                        }
                    }
                }
            case (MPRISNames.trackList, "GoTo"):
                let id = try reader.readObjectPath()
                guard let chapter = narrator.book?.chapter(ofTrackID: id) else {
                    throw LectorError(.invalidArgument, "\(id) is not a chapter of the open book")
                }
                narrator.jump(toChapter: chapter, offset: 0, announceSeek: chapter == narrator.state.chapter)
            case (MPRISNames.trackList, "AddTrack"), (MPRISNames.trackList, "RemoveTrack"):
                throw LectorError(.invalidArgument, "the chapter list of a book cannot be edited (CanEditTracks is false)")
            case (MPRISNames.narrator, "Open"):
                let uri = try reader.readString()
                return openBook(uri: uri, options: try reader.readOptions(), message: message, busError)
            case (MPRISNames.narrator, "GetChapterText"):
                let chapter = Int(try reader.readUInt32())
                guard let book = narrator.book, book.chapterTitles.indices.contains(chapter) else {
                    throw LectorError(.invalidArgument, "no chapter \(chapter) in the open book")
                }
                guard let text = book.chapterTexts[chapter] else {
                    throw LectorError(.chapterNotReady, "chapter \(chapter) is still being read from the book; try again shortly")
                }
                return MethodReply.send(to: message) {
                    try $0.appendObjectPath(book.trackID(chapter))
                    try $0.append(text)
                }
            default:
                throw LectorError(.invalidArgument, "unknown method \(reader.interface).\(reader.member)")
            }
            return MethodReply.send(to: message)
        } catch let failure as LectorError {
            return MethodReply.fail(failure, into: busError)
        } catch {
            return MethodReply.fail(error, into: busError)
        }
    }

    // MARK: - properties

    func mprisGet(_ interface: String, _ name: String, _ writer: MessageWriter,
                  _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let state = narrator.state
        do {
            switch name {
            case "CanQuit", "HasTrackList", "CanControl": try writer.append(true)
            case "CanRaise", "Shuffle", "CanEditTracks": try writer.append(false)
            case "Identity": try writer.append("Lector")
            case "DesktopEntry": try writer.append(MPRISNames.desktopEntry)
            case "SupportedUriSchemes": try writer.appendStrings(["file"])
            case "SupportedMimeTypes": try writer.appendStrings(MPRISNames.mimeTypes)
            case "PlaybackStatus": try writer.append(state.status.rawValue)
            case "LoopStatus": try writer.append(state.loop.rawValue)
            case "Rate": try writer.append(state.rate)
            case "Volume": try writer.append(state.volume)
            case "Position": try writer.append(narrator.position)
            case "MinimumRate": try writer.append(PlayerState.rateRange.lowerBound)
            case "MaximumRate": try writer.append(PlayerState.rateRange.upperBound)
            case "CanGoNext": try writer.append(state.canGoNext)
            case "CanGoPrevious": try writer.append(state.canGoPrevious)
            case "CanPlay": try writer.append(state.canPlay)
            case "CanPause": try writer.append(state.canPause)
            case "CanSeek": try writer.append(state.canSeek)
            case "Metadata":
                try writer.container("a", "{sv}") {
                    if narrator.book != nil {
                        try writeMetadata(writer, chapter: state.chapter)
                    } else {
                        try writer.entry("mpris:trackid", "o") { try $0.appendObjectPath(noTrackID) }
                    }
                }
            case "Tracks":
                try writer.container("a", "o") {
                    if let book = narrator.book {
                        for chapter in BusText.trackWindow(count: book.chapterCount, current: state.chapter) {
                            try writer.appendObjectPath(book.trackID(chapter))
                        }
                    }
                }
            case "Book": try writeBook(writer)
            case "PausedBecause": try writer.append(pausedBecause)
            default:
                return MethodReply.fail(.init(.invalidArgument, "no property \(name)"), into: busError)
            }
            return 1
        } catch {
            return MethodReply.fail(error, into: busError)
        }
    }

    func mprisSet(_ interface: String, _ name: String, _ reader: MessageReader,
                  _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        do {
            switch name {
            case "Rate":
                let rate = try reader.readDouble()
                guard rate.isFinite else { throw LectorError.invalidArgument("Rate must be a finite number") }
                if rate == 0 { narrator.pause(); return 1 }   // the spec: 0 means Pause
                guard PlayerState.rateRange.contains(rate) else {
                    throw LectorError.invalidArgument("Rate must be between MinimumRate \(PlayerState.rateRange.lowerBound) and MaximumRate \(PlayerState.rateRange.upperBound), got \(rate)")
                }
                narrator.setRate(rate)
            case "Volume":
                let volume = try reader.readDouble()
                guard volume.isFinite else { throw LectorError.invalidArgument("Volume must be a finite number") }
                narrator.setVolume(min(1, max(0, volume)))
            case "LoopStatus":
                let text = try reader.readString()
                guard let loop = PlayerState.Loop(rawValue: text) else {
                    throw LectorError.invalidArgument("LoopStatus must be None, Track or Playlist, got \"\(text)\"")
                }
                narrator.update { $0.loop = loop }
            case "Shuffle":
                throw LectorError.invalidArgument("chapters are read in order: Shuffle is not supported")
            default:
                throw LectorError.invalidArgument("property \(name) is read-only")
            }
            return 1
        } catch let failure as LectorError {
            return MethodReply.fail(failure, into: busError)
        } catch {
            return MethodReply.fail(.init(.invalidArgument, "\(error)"), into: busError)
        }
    }

    /// Audiobook practice (Cozy, GNOME Podcasts): title = chapter, album = book, artist = authors.
    func writeMetadata(_ writer: MessageWriter, chapter: Int) throws {
        guard let book = narrator.book else { return }
        try writer.entry("mpris:trackid", "o") { try $0.appendObjectPath(book.trackID(chapter)) }
        try writer.entry("xesam:title", "s") { try $0.append(BusText.capped(book.chapterTitles[chapter])) }
        try writer.entry("xesam:album", "s") { try $0.append(BusText.capped(book.title)) }
        try writer.entry("xesam:artist", "as") { try $0.appendStrings(BusText.cappedList(book.authors)) }
        try writer.entry("xesam:trackNumber", "i") { try $0.append(Int32(chapter + 1)) }
        try writer.entry("xesam:url", "s") { try $0.append(book.url.absoluteString) }
        try writer.entry("mpris:length", "x") { try $0.append(narrator.length(ofChapter: chapter)) }
        if let cover = book.coverURL {
            try writer.entry("mpris:artUrl", "s") { try $0.append(cover.absoluteString) }
        }
    }

    private func writeBook(_ writer: MessageWriter) throws {
        try writer.container("a", "{sv}") {
            guard let book = narrator.book else { return }
            try writer.entry("title", "s") { try $0.append(BusText.capped(book.title)) }
            try writer.entry("authors", "as") { try $0.appendStrings(BusText.cappedList(book.authors)) }
            try writer.entry("language", "s") { try $0.append(BusText.capped(book.language ?? "", maxCharacters: 64)) }
            try writer.entry("cover", "s") { try $0.append(book.coverURL?.absoluteString ?? "") }
            try writer.entry("url", "s") { try $0.append(book.url.absoluteString) }
            try writer.entry("chapter-count", "u") { try $0.append(UInt32(book.chapterCount)) }
            try writer.entry("chapter", "u") { try $0.append(UInt32(narrator.state.chapter)) }
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
