import CSystemd
import LectorBus
import LectorCore
import LectorLoop

/// io.github.lector.Lector1 methods and properties.
extension LectorService {
    /// io.github.lector.Lector1, member by member (dbus/io.github.lector.Lector1.xml documents them).
    func lector1Object() -> BusObject {
        BusObject(path: BusNames.objectPath, interface: BusNames.interface, target: self, members: [
            .method("Speak", in: "sa{sv}", ["text", "options"], out: "t", ["id"]) { try $0.speak($1) },
            .method("Cancel", in: "t", ["id"]) { try $0.cancel($1) },
            .method("Stop") { service, _ in service.announcer.cancelAll(reason: .cancelled); return .done },
            .method("Reload") { service, _ in try service.reloadConfiguration(); return .done },
            .method("GetQueue", out: "a(tsss)", ["speeches"]) { service, _ in service.listQueue() },
            .signal("SpeechStarted", "t", ["id"]),
            .signal("SpeechFinished", "ts", ["id", "reason"]),
            .signal("SpeakingRange", "tuu", ["id", "start", "length"]),
            .property("Voices", "a(sss)", .constant) { try $0.writeVoices($1) },
            .property("Version", "s", .constant) { _, reply in try reply.append(BusNames.version) },
            .property("ReadNotifications", "b", .change,
                      get: { try $1.append($0.notifications.reads) },
                      set: { $0.notifications.setReads(try $1.readBool()) }),
        ] + notificationAppMembers())
    }

    /// `Speak(s text, a{sv} options) -> t id`: the id is replied before any signal about it.
    func speak(_ call: MethodCall) throws -> MethodResult {
        let text = try call.reader.readString(atMost: SpeechRequest.maximumTextBytes, tooLong: SpeechRequest.tooLong(bytes:))
        let options = try call.reader.readOptions()
        try announcer.speak(text: text, options: options, sender: call.sender, ready: {
            if case .unavailable(let reason) = soundServer.state {
                throw LectorError(.soundServerUnavailable, "the sound server is not reachable (\(reason)); retrying in the background")
            }
        }, accepted: { id in call.reply { try $0.append(id) } })
        return .answered
    }

    /// `Cancel(t id)`: a waiting or speaking id ends with `cancelled`; an unknown one is an error.
    func cancel(_ call: MethodCall) throws -> MethodResult {
        try announcer.cancel(id: try call.reader.readUInt64())
        return .done
    }

    /// `GetQueue() -> a(tsss)`: (id, priority, "speaking" | "waiting", text) in speaking order.
    func listQueue() -> MethodResult {
        let entries = announcer.listing
        return .values { writer in
            try writer.container("a", "(tsss)") {
                for (id, priority, state, text) in entries {
                    try writer.container("r", "tsss") {
                        try writer.append(id)
                        try writer.append(priority)
                        try writer.append(state)
                        try writer.append(text)
                    }
                }
            }
        }
    }

    /// `Voices a(sss)`: (name, language, gender) of every installed espeak-ng voice.
    func writeVoices(_ writer: MessageWriter) throws {
        try writer.container("a", "(sss)") {
            for voice in catalog.voices {
                try writer.container("r", "sss") {
                    try writer.append(voice.name)
                    try writer.append(voice.primaryLanguage)
                    try writer.append(voice.gender.rawValue)
                }
            }
        }
    }
}
