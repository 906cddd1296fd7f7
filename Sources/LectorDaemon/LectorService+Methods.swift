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
            .method("Stop") { service, _ in service.cancelAll(reason: .cancelled); return .done },
            .method("Reload") { service, _ in try service.reloadConfiguration(); return .done },
            .method("GetQueue", out: "a(tsss)", ["speeches"]) { service, _ in service.listQueue() },
            .signal("SpeechStarted", "t", ["id"]),
            .signal("SpeechFinished", "ts", ["id", "reason"]),
            .signal("SpeakingRange", "tuu", ["id", "start", "length"]),
            .property("Voices", "a(sss)", .constant) { try $0.writeVoices($1) },
            .property("Version", "s", .constant) { _, reply in try reply.append(BusNames.version) },
            .property("ReadNotifications", "b", .change,
                      get: { try $1.append($0.readsNotifications) },
                      set: { $0.setReadNotifications(try $1.readBool()) }),
        ])
    }

    /// `Speak(s text, a{sv} options) -> t id`
    func speak(_ call: MethodCall) throws -> MethodResult {
        let text = try call.reader.readString()
        let options = try call.reader.readOptions()
        // The cheap check first: a flood's refused calls cost no text checks or voice lookups.
        let sender = call.sender
        let important = options["priority"] == .string(SpeechPriority.important.rawValue)
        guard rateLimiter.admit(sender: sender, at: loop.now, important: important) else {
            throw Self.error(AnnouncementRefusal.rateLimited(sender: sender))
        }
        var request = try SpeechRequest(text: text, options: options)
        applyDefaults(to: &request, options: options)
        _ = try catalog.resolve(language: request.language, voice: request.voice)
        if case .unavailable(let reason) = soundServer.state {
            throw LectorError(.soundServerUnavailable, "the sound server is not reachable (\(reason)); retrying in the background")
        }
        let id = nextSpeechID
        let admission: QueueAdmission
        do {
            admission = try queue.enqueue(request, id: id, priority: request.priority, sender: sender,
                                          speaking: current?.priority)
        } catch {
            throw Self.error(error)
        }
        nextSpeechID += 1
        call.reply { try $0.append(id) }
        admitted(admission, id: id)   // after the reply, so the id is known before its SpeechFinished
        return .answered
    }

    /// Carries out what the queue decided for a new speech: what it removed, whether it was
    /// dropped at once, whether the speech being spoken must stop.
    func admitted(_ admission: QueueAdmission, id: UInt64) {
        for removal in admission.removed { emitFinished(removal.id, FinishReason(removal.reason)) }
        if !admission.accepted { emitFinished(id, .dropped) }
        if let reason = admission.interruptCurrent { endCurrent(FinishReason(reason)) }
        startNext()
    }

    static func error(_ refusal: AnnouncementRefusal) -> LectorError {
        LectorError(LectorError.Kind(rawValue: refusal.errorName) ?? .failed, refusal.message)
    }

    /// `Cancel(t id)`: a waiting or speaking id ends with `cancelled`; an unknown one is an error.
    func cancel(_ call: MethodCall) throws -> MethodResult {
        let id = try call.reader.readUInt64()
        if queue.remove(id: id) != nil {
            emitFinished(id, .cancelled)
        } else if current?.id == id {
            endCurrent(.cancelled)
            startNext()
        } else {
            throw LectorError(.noSuchSpeech, "no speech \(id) is waiting or speaking (it may have finished)")
        }
        return .done
    }

    /// `GetQueue() -> a(tsss)`: (id, priority, "speaking" | "waiting", text) in speaking order.
    func listQueue() -> MethodResult {
        var entries: [(UInt64, String, String, String)] = []
        if let current { entries.append((current.id, current.priority.rawValue, "speaking", current.request.text)) }
        for waiting in queue.waiting {
            entries.append((waiting.id, waiting.priority.rawValue, "waiting", queue.job(id: waiting.id)?.text ?? ""))
        }
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
