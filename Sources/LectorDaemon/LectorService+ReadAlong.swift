import Foundation
import Glibc
import LectorBus
import LectorCore
import LectorSpawn

/// Narrator1's members for the read-along page (and `lector chapters`): the chapter list, a
/// chapter's markup and images, and moving narration to a word the listener chose.
extension LectorService {
    /// `a(sut)`: title, depth, estimated length in normal-rate microseconds (0 until known).
    func chapterList(_ call: MethodCall) throws -> MethodResult {
        guard let book = narrator.book else { throw LectorError(.noBook, "no book is open: Open one first") }
        return .values { writer in
            try writer.container("a", "(sut)") {
                for (index, title) in book.chapterTitles.enumerated() {
                    try writer.container("r", "sut") {
                        try writer.append(BusText.capped(title))
                        try writer.append(UInt32(clamping: book.chapterDepths.indices.contains(index) ? book.chapterDepths[index] : 0))
                        try writer.append(UInt64(max(0, self.narrator.length(ofChapter: index))))
                    }
                }
            }
        }
    }

    func chapterMarkup(_ call: MethodCall) throws -> MethodResult {
        let chapter = Int(try call.reader.readUInt32())
        guard let book = narrator.book else { throw LectorError(.noBook, "no book is open: Open one first") }
        try library.chapterMarkup(chapter, trackID: book.trackID(chapter), reply: call.deferReply())
        return .answered
    }

    /// Moves narration to the word at `offset` of `chapter` (a word the listener clicked), keeping
    /// the playback status: playing goes on from there, paused stays paused there.
    func seekToText(_ call: MethodCall) throws -> MethodResult {
        let chapter = Int(try call.reader.readUInt32())
        let offset = Int(try call.reader.readUInt32())
        guard let book = narrator.book else { throw LectorError(.noBook, "no book is open: Open one first") }
        guard book.chapterTitles.indices.contains(chapter) else {
            throw LectorError.invalidArgument("no chapter \(chapter) in the open book: it has \(book.chapterCount) (0 to \(book.chapterCount - 1))")
        }
        if let count = book.chapterScalarCounts[chapter], offset > count {
            throw LectorError.invalidArgument("offset \(offset) is past the end of chapter \(chapter) (\(count) characters)")
        }
        audioPolicy.listenerActed(pausing: false)
        narrator.jump(toChapter: chapter, offset: offset, announceSeek: true)
        return .done
    }
}

extension LectorService {
    /// MPRIS `Raise`: the read-along page. Its address comes from the view server (D-Bus
    /// activation starts it under its own unit: this one may not open network sockets), and the
    /// desktop's portal opens the browser (a browser started from here would inherit this unit's
    /// sandbox). Without either (a build run from the tree, no portal), `lector view` does both.
    func raise() {
        Task { @MainActor [weak self] in
            guard let bus = self?.bus else { return }
            do {
                let url = try await bus.callAsync(destination: ViewNames.service, path: ViewNames.path,
                                                  interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                  timeoutMicroseconds: 20_000_000) { writer in
                    try writer.append(ViewNames.interface)
                    try writer.append("Url")
                }.readDisplayVariant()
                _ = try await bus.callAsync(destination: "org.freedesktop.portal.Desktop",
                                            path: "/org/freedesktop/portal/desktop",
                                            interface: "org.freedesktop.portal.OpenURI", member: "OpenURI") { writer in
                    try writer.append("")
                    try writer.append(url)
                    try writer.container("a", "{sv}") {}
                }
            } catch {
                ReadAlongLauncher.open()
            }
        }
    }
}

/// Runs `lector view` (the CLI, found by `OwnExecutable.sibling`: beside this program in a build
/// tree, PREFIX/bin/lector when installed), which finds or starts the read-along server and the
/// browser, through the one spawner (LectorSpawn: no descriptor of ours leaks into it, default
/// signals, its own session). The daemon never waits for it on the loop; a background thread reaps it.
enum ReadAlongLauncher {
    static func open() {
        let found = OwnExecutable.sibling(named: "lector")
        guard let executable = found.path else {
            Journal.log(.warning, "Raise: could not run lector view: \(found)")
            return
        }
        let null = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        do {
            let pid = try Spawn.start(executable, arguments: ["view"], environment: ProcessInfo.processInfo.environment,
                                      stdio: [null, null, null], detach: .session)
            // `lector view` returns once the page is open (the server it starts is not its child).
            DispatchQueue.global(qos: .utility).async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            }
        } catch {
            Journal.log(.warning, "Raise: could not run lector view: \(error)")
        }
    }
}
