extension ChannelVolumes {
    /// The volumes to set one after another to glide from this volume to `target`, so a duck
    /// or its undo is heard as a short fade rather than a click. This volume itself is not in
    /// the list; the last element is exactly `target`, so "is it still the volume we set?"
    /// compares exact values. Steps that would repeat the previous value are left out.
    ///
    /// ```swift
    /// ChannelVolumes([65536, 65536]).ramp(to: ChannelVolumes([19661, 19661]), steps: 3)
    /// // [[50244, 50244], [34953, 34953], [19661, 19661]]
    /// ```
    public func ramp(to target: ChannelVolumes, steps: Int) -> [ChannelVolumes] {
        // Channel counts differ only if the stream was reconfigured: jump straight there.
        guard channels == target.channels, steps > 1 else { return self == target ? [] : [target] }
        var ramp: [ChannelVolumes] = []
        var previous = self
        for step in 1...steps {
            let next: ChannelVolumes
            if step == steps {
                next = target
            } else {
                let fraction = Double(step) / Double(steps)
                next = ChannelVolumes(zip(values, target.values).map { from, to in
                    UInt32((Double(from) + (Double(to) - Double(from)) * fraction).rounded())
                })
            }
            if next != previous { ramp.append(next) }
            previous = next
        }
        return ramp
    }

    /// Equal within `tolerance` raw units on every channel. For volumes the server stored and
    /// converted (pipewire keeps floats), never for live volumes, which read back exactly.
    ///
    /// ```swift
    /// ChannelVolumes([19661]).isClose(to: ChannelVolumes([19660]), tolerance: 2)   // true
    /// ```
    public func isClose(to other: ChannelVolumes, tolerance: UInt32) -> Bool {
        channels == other.channels
            && zip(values, other.values).allSatisfy { a, b in (a > b ? a - b : b - a) <= tolerance }
    }
}
