import LectorBus
import LectorCore

/// Narrator1's members for the listener's daily loop (issue 13): the library, per-book voice,
/// and, in their own files, the sleep timer and skips. Documented in
/// dbus/io.github.lector.Narrator1.xml, which IntrospectionTests compares to what is served.
extension LectorService {
    func dailyLoopMembers() -> [BusMember<LectorService>] {
        [
            .method("GetLibrary", out: "aa{sv}as", ["books", "problems"]) { service, call in
                service.library.listBooks(reply: call.deferReply())
                return .answered
            },
            .method("ForgetBook", in: "s", ["book"], out: "s", ["path"]) { service, call in
                let query = try call.reader.readString()
                guard !query.isEmpty else { throw LectorError.invalidArgument("name the book to forget: its title, its file or its identity") }
                service.library.forget(query, reply: call.deferReply())
                return .answered
            },
        ]
    }
}
