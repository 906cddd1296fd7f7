import CLectorShim
import CSystemd
import LectorBus
import LectorCore
import LectorLoop

/// io.github.lector.Lector1 methods and properties.
extension LectorService {
    static let vtable: UnsafePointer<sd_bus_vtable> = {
        var handlers = lector_lector1_handlers(
            speak: { m, u, e in onLoopThread((m, u, e)) { m, u, e in service(u).speak(m!, e) } },
            cancel: { m, u, e in onLoopThread((m, u, e)) { m, u, e in service(u).cancel(m!, e) } },
            stop: { m, u, _ in onLoopThread((m, u)) { m, u in service(u).stop(m!) } },
            get_queue: { m, u, _ in onLoopThread((m, u)) { m, u in service(u).listQueue(m!) } },
            reload: { m, u, e in onLoopThread((m, u, e)) { m, u, e in service(u).reload(m!, e) } },
            get_voices: { _, _, _, _, reply, u, _ in onLoopThread((reply, u)) { reply, u in service(u).voices(into: reply!) } },
            get_version: { _, _, _, _, reply, _, _ in
                (try? MessageWriter(reply!).append(BusNames.version)) == nil ? -22 : 1
            },
            get_read_notifications: { _, _, _, _, reply, u, _ in
                onLoopThread((reply, u)) { reply, u in
                    (try? MessageWriter(reply!).append(service(u).readsNotifications)) == nil ? -22 : 1
                }
            },
            set_read_notifications: { _, _, _, _, value, u, _ in
                onLoopThread((value, u)) { value, u in
                    guard let on = try? MessageReader(value!).readBool() else { return -22 }
                    service(u).setReadNotifications(on)
                    return 1
                }
            })
        return lector_lector1_vtable(&handlers)
    }()

    static func service(_ userdata: UnsafeMutableRawPointer?) -> LectorService {
        Unmanaged<LectorService>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// `Speak(s text, a{sv} options) -> t id`
    func speak(_ message: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        do {
            let reader = MessageReader(message)
            let text = try reader.readString()
            let options = try reader.readOptions()
            // The cheap check first: a flood's refused calls cost no text checks or voice lookups.
            let sender = reader.sender
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
            let reply = MethodReply.send(to: message) { try $0.append(id) }
            admitted(admission, id: id)   // after the reply, so the id is known before its SpeechFinished
            return reply
        } catch let failure as LectorError {
            return MethodReply.fail(failure, into: busError)
        } catch {
            return MethodReply.fail(error, into: busError)
        }
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
    func cancel(_ message: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        do {
            let id = try MessageReader(message).readUInt64()
            if queue.remove(id: id) != nil {
                emitFinished(id, .cancelled)
            } else if current?.id == id {
                endCurrent(.cancelled)
                startNext()
            } else {
                throw LectorError(.noSuchSpeech, "no speech \(id) is waiting or speaking (it may have finished)")
            }
            return MethodReply.send(to: message)
        } catch let failure as LectorError {
            return MethodReply.fail(failure, into: busError)
        } catch {
            return MethodReply.fail(error, into: busError)
        }
    }

    /// `Stop()`: cancel everything, current first, then the queue in order.
    func stop(_ message: OpaquePointer) -> Int32 {
        cancelAll(reason: .cancelled)
        return MethodReply.send(to: message)
    }

    /// `GetQueue() -> a(tsss)`: (id, priority, "speaking" | "waiting", text) in speaking order.
    func listQueue(_ message: OpaquePointer) -> Int32 {
        var entries: [(UInt64, String, String, String)] = []
        if let current { entries.append((current.id, current.priority.rawValue, "speaking", current.request.text)) }
        for waiting in queue.waiting {
            entries.append((waiting.id, waiting.priority.rawValue, "waiting", queue.job(id: waiting.id)?.text ?? ""))
        }
        return MethodReply.send(to: message) { writer in
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
    func voices(into reply: OpaquePointer) -> Int32 {
        do {
            let writer = MessageWriter(reply)
            try writer.container("a", "(sss)") {
                for voice in catalog.voices {
                    try writer.container("r", "sss") {
                        try writer.append(voice.name)
                        try writer.append(voice.primaryLanguage)
                        try writer.append(voice.gender.rawValue)
                    }
                }
            }
            return 1
        } catch {
            return -22
        }
    }
}
