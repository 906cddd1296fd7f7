import LectorBus
import LectorCore

/// Resume from anywhere: MPRIS Play and PlayPause, and Narrator1.Resume, play the open book, or,
/// when none is open (a fresh daemon whose start-up resume is still parsing, or one whose book
/// was gone), the book read last at its bookmark.
extension LectorService {
    /// MPRIS Play. With no book open it resumes the book read last; with nothing to resume it
    /// does nothing, as the spec asks of a player with nothing to play (CanPlay is false then).
    func play() {
        audioPolicy.listenerActed(pausing: false)
        guard narrator.book == nil else { return narrator.play() }
        do {
            try library.resume(play: true) { nil }
        } catch {
            Journal.log(.notice, "Play with nothing to play: \(error)")
        }
    }

    /// MPRIS PlayPause with no book open: resumes the book read last, like Play; with nothing to
    /// resume it fails (the spec: PlayPause with CanPause false is an error) saying why.
    func resumeForPlayPause() throws {
        audioPolicy.listenerActed(pausing: false)
        try library.resume(play: true) { nil }
    }

    /// `Narrator1.Resume()`: answered once the book plays (`lector read` without a file).
    func resume(_ call: MethodCall) throws -> MethodResult {
        audioPolicy.listenerActed(pausing: false)
        try library.resume(play: true) { call.deferReply() }
        return .answered
    }
}
