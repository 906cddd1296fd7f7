import LectorBus
import LectorConfig
import LectorCore

/// Moving through time: Narrator1.Skip, and what MPRIS Next/Previous (media keys) do, as
/// config.toml's `[narration] next-previous` says: chapters (the default) or skips.
extension LectorService {
    func skipMembers() -> [BusMember<LectorService>] {
        [
            .method("Skip", in: "x", ["offset"]) { service, call in
                let offset = try call.reader.readInt64()
                guard service.narrator.book != nil else {
                    throw LectorError(.noBook, "no book is open: open one with lector read FILE (Narrator1.Open)")
                }
                service.audioPolicy.listenerActed(pausing: false)
                service.narrator.skip(by: offset)
                return .done
            },
        ]
    }

    /// MPRIS Next: the next chapter, or a skip ahead.
    func mediaKeyNext() {
        audioPolicy.listenerActed(pausing: false)
        let narration = configuration.narration
        guard narration.nextPrevious == .skip else { return narrator.next() }
        narrator.skip(by: Int64(narration.skipForwardSeconds) * 1_000_000)
    }

    /// MPRIS Previous: the previous chapter (or this one's start), or a skip back.
    func mediaKeyPrevious() {
        audioPolicy.listenerActed(pausing: false)
        let narration = configuration.narration
        guard narration.nextPrevious == .skip else { return narrator.previous() }
        narrator.skip(by: -Int64(narration.skipBackSeconds) * 1_000_000)
    }
}
