import CLectorShim
import CSystemd
import LectorBus
import LectorCore

/// io.github.lector.Lector1 methods and properties.
extension LectorService {
    static let vtable: UnsafePointer<sd_bus_vtable> = {
        var handlers = lector_lector1_handlers(
            speak: { message, userdata, error in service(userdata).speak(message!, error) },
            cancel: { message, userdata, error in service(userdata).cancel(message!, error) },
            stop: { message, userdata, _ in service(userdata).stop(message!) },
            get_voices: { _, _, _, _, reply, userdata, _ in service(userdata).voices(into: reply!) },
            get_version: { _, _, _, _, reply, _, _ in
                (try? MessageWriter(reply!).append(BusNames.version)) == nil ? -22 : 1
            })
        return lector_lector1_vtable(&handlers)
    }()

    private static func service(_ userdata: UnsafeMutableRawPointer?) -> LectorService {
        Unmanaged<LectorService>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// `Speak(s text, a{sv} options) -> t id`
    func speak(_ message: OpaquePointer, _ busError: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        do {
            let reader = MessageReader(message)
            let text = try reader.readString()
            let options = try reader.readOptions()
            let request = try SpeechRequest(text: text, options: options)
            _ = try catalog.resolve(language: request.language, voice: request.voice)
            if case .unavailable(let reason) = soundServer.state {
                throw LectorError(.soundServerUnavailable, "the sound server is not reachable (\(reason)); retrying in the background")
            }
            let id = nextSpeechID
            nextSpeechID += 1
            queue.enqueue(request, id: id)
            let reply = MethodReply.send(to: message) { try $0.append(id) }
            startNext()
            return reply
        } catch let failure as LectorError {
            return MethodReply.fail(failure, into: busError)
        } catch {
            return MethodReply.fail(.init(.failed, "\(error)"), into: busError)
        }
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
            return MethodReply.fail(.init(.failed, "\(error)"), into: busError)
        }
    }

    /// `Stop()`: cancel everything, current first, then the queue in order.
    func stop(_ message: OpaquePointer) -> Int32 {
        cancelAll(reason: .cancelled)
        return MethodReply.send(to: message)
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
