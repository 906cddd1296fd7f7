/// One output port of a sink ("analog-output-headphones"), as libpulse's `pa_port_info` reports it.
public struct PortSnapshot: Hashable, Codable, Sendable {
    /// `pa_device_port_type_t` (PulseAudio 14+; older servers and some drivers say `unknown`).
    public enum Kind: String, Codable, Sendable {
        case unknown, aux, speaker, headphones, line, mic, headset, handset, earpiece, spdif, hdmi, tv, radio,
             video, usb, bluetooth, portable, handsfree, car, hifi, phone, network, analog

        /// From the raw `pa_device_port_type_t` value.
        public init(pulseType: UInt32) {
            let all: [Kind] = [.unknown, .aux, .speaker, .headphones, .line, .mic, .headset, .handset, .earpiece,
                               .spdif, .hdmi, .tv, .radio, .video, .usb, .bluetooth, .portable, .handsfree, .car,
                               .hifi, .phone, .network, .analog]
            self = pulseType < all.count ? all[Int(pulseType)] : .unknown
        }
    }

    /// `pa_port_available_t`: jack sensing says yes/no; many ports never know.
    public enum Availability: String, Codable, Sendable { case unknown, no, yes }

    public var name: String
    public var description: String
    public var kind: Kind
    public var availability: Availability

    public init(name: String, description: String = "", kind: Kind = .unknown, availability: Availability = .unknown) {
        self.name = name
        self.description = description
        self.kind = kind
        self.availability = availability
    }
}
