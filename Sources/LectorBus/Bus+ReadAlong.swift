import LectorInterface

extension Bus {
    /// The address of the read-along server running in this session (its `Url` property), if
    /// any. Asks the bus, so where the activation file is installed (the package) D-Bus
    /// activation starts one under its own unit. For `lector view` and a `lector-view` that lost
    /// the name to another.
    public static func readAlongServerURL() -> String? {
        guard let bus = try? Bus.session() else { return nil }
        defer { bus.close() }
        guard let reply = try? bus.call(destination: ViewNames.service, path: ViewNames.path,
                                        interface: "org.freedesktop.DBus.Properties", member: "Get", { writer in
                                            try writer.append(ViewNames.interface)
                                            try writer.append("Url")
                                        }) else { return nil }
        return (try? reply.readDisplayVariant()).flatMap { $0.isEmpty ? nil : $0 }
    }
}
