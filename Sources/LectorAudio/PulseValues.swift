import CPulse
import LectorPolicy

/// Conversions between libpulse's C values and the policy's snapshot values.
enum PulseValues {
    static func volumes(_ volume: pa_cvolume) -> ChannelVolumes {
        var copy = volume
        let count = Int(copy.channels)
        return withUnsafeBytes(of: &copy.values) { raw in
            ChannelVolumes(Array(raw.bindMemory(to: pa_volume_t.self).prefix(count)))
        }
    }

    static func cvolume(_ volumes: ChannelVolumes) -> pa_cvolume {
        var result = pa_cvolume()
        result.channels = UInt8(min(volumes.channels, Int(PA_CHANNELS_MAX)))
        withUnsafeMutableBytes(of: &result.values) { raw in
            let values = raw.bindMemory(to: pa_volume_t.self)
            for (i, value) in volumes.values.prefix(Int(PA_CHANNELS_MAX)).enumerated() { values[i] = value }
        }
        return result
    }

    static func properties(_ list: OpaquePointer?) -> [String: String] {
        guard let list else { return [:] }
        var result: [String: String] = [:]
        var state: UnsafeMutableRawPointer?
        while let key = pa_proplist_iterate(list, &state) {
            if let value = pa_proplist_gets(list, key) { result[String(cString: key)] = String(cString: value) }
        }
        return result
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }

    static func sink(_ info: pa_sink_info) -> SinkSnapshot {
        var ports: [PortSnapshot] = []
        for i in 0..<Int(info.n_ports) {
            guard let port = info.ports?[i]?.pointee else { continue }
            ports.append(PortSnapshot(name: string(port.name), description: string(port.description),
                                      kind: PortSnapshot.Kind(pulseType: port.type),
                                      availability: availability(port.available)))
        }
        return SinkSnapshot(index: info.index, name: string(info.name), description: string(info.description),
                            properties: properties(info.proplist), ports: ports,
                            activePort: info.active_port.map { string($0.pointee.name) },
                            volume: volumes(info.volume), muted: info.mute != 0)
    }

    static func availability(_ value: Int32) -> PortSnapshot.Availability {
        switch value {
        case Int32(PA_PORT_AVAILABLE_NO.rawValue): return .no
        case Int32(PA_PORT_AVAILABLE_YES.rawValue): return .yes
        default: return .unknown
        }
    }
}
