/// A volume as the sound server keeps it: one raw value per channel, where `norm` (0x10000) is
/// 100 % as `pactl` prints it. Compared exactly: restoring a ducked stream depends on telling
/// "still the value we set" from "the user moved the slider".
///
/// ```swift
/// let music = ChannelVolumes([65536, 65536])
/// music.scaled(by: 0.3)   // [19661, 19661]: what pactl shows as 30 %
/// ```
public struct ChannelVolumes: Hashable, Codable, Sendable, CustomStringConvertible {
    public static let norm: UInt32 = 0x10000
    /// PulseAudio's largest valid volume (PA_VOLUME_MAX).
    public static let max: UInt32 = UInt32.max / 2

    public var values: [UInt32]

    public init(_ values: [UInt32]) { self.values = values }

    /// Every channel at `value`.
    public init(channels: Int, value: UInt32) { values = Array(repeating: value, count: channels) }

    public var channels: Int { values.count }
    /// The loudest channel, as PulseAudio's `pa_cvolume_max`.
    public var loudest: UInt32 { values.max() ?? 0 }

    /// Each channel times `factor` (0...1 lowers), rounded, kept in range.
    public func scaled(by factor: Double) -> ChannelVolumes {
        ChannelVolumes(values.map { UInt32(Swift.min(Double(Self.max), (Double($0) * factor).rounded())) })
    }

    /// 0.3 → "30%"; per channel when they differ, like pactl.
    public var description: String {
        let percents = values.map { "\(Int((Double($0) * 100 / Double(Self.norm)).rounded()))%" }
        return Set(percents).count == 1 ? percents[0] : percents.joined(separator: "/")
    }
}
