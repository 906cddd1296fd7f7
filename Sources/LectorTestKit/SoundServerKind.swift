import Foundation

/// Which sound server a `TestSession` starts. Both speak the PulseAudio protocol on the same
/// socket (`TestSession.pulseServer`), so clients (the daemon, pactl, parec) do not care.
public enum SoundServerKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `pulseaudio` with module-native-protocol-unix, module-stream-restore and null sinks.
    case pulseaudio
    /// `pipewire` + `wireplumber` (the session manager: linking, default nodes, restore-stream)
    /// + `pipewire-pulse` (the PulseAudio protocol), with null sinks loaded through pipewire-pulse.
    case pipewire

    /// `LECTOR_TEST_SOUND_SERVER=pulseaudio|pipewire` chooses the server of every session that
    /// does not ask for one; unset or empty means pulseaudio.
    public static let environmentVariable = "LECTOR_TEST_SOUND_SERVER"

    /// The kind `LECTOR_TEST_SOUND_SERVER` asks for; throws on a value that is neither.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> SoundServerKind {
        guard let value = environment[environmentVariable]?.trimmingCharacters(in: .whitespaces),
              !value.isEmpty else { return .pulseaudio }
        guard let kind = SoundServerKind(rawValue: value.lowercased()) else {
            throw TestKitError.failed("\(environmentVariable)=\(value): expected pulseaudio or pipewire")
        }
        return kind
    }

    public var description: String {
        switch self {
        case .pulseaudio: return "PulseAudio"
        case .pipewire: return "PipeWire (pipewire-pulse, WirePlumber)"
        }
    }
}
