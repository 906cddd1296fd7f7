import LectorBus
import LectorCore

/// The sleep timer on the bus: Narrator1.SetSleepTimer and the SleepTimer property
/// (dbus/io.github.lector.Narrator1.xml); the timing is SleepTimer's, the fade the audio policy's.
extension LectorService {
    func sleepTimerMembers() -> [BusMember<LectorService>] {
        [
            .method("SetSleepTimer", in: "s", ["duration"]) { service, call in
                let request = try SleepRequest(try call.reader.readString())
                service.sleepTimer.set(request)
                switch request {
                case .off: Journal.log(.info, "sleep timer off")
                case .endOfChapter: Journal.log(.info, "sleep timer: pausing at the end of the chapter")
                case .duration(let seconds): Journal.log(.info, "sleep timer: pausing in \(DurationText.clock(seconds: seconds)) of narration")
                }
                return .done
            },
            .property("SleepTimer", "a{sv}", .change) { try $0.writeSleepTimer($1) },
        ]
    }

    /// `{}` when off; else mode s ("duration" or "chapter"), remaining x (microseconds; not
    /// signalled as it counts down, read it again, as Position), fading b.
    func writeSleepTimer(_ writer: MessageWriter) throws {
        try writer.container("a", "{sv}") {
            guard let mode = sleepTimer.mode else { return }
            try writer.entry("mode", "s") { try $0.append(mode == .duration ? "duration" : "chapter") }
            try writer.entry("remaining", "x") { try $0.append(Int64(clamping: sleepTimer.remaining ?? 0)) }
            try writer.entry("fading", "b") { try $0.append(sleepTimer.isFading) }
        }
    }

    /// Time is up (`SleepTimer.onExpired`): narration pauses, saying why.
    func sleepTimerExpired() {
        Journal.log(.info, "sleep timer: time is up, pausing narration", fields: audioPolicy.narrationFields([:]))
        audioPolicy.pauseNarration(because: "sleep-timer")
    }
}
