import Foundation
import LectorPolicy
import XCTest

final class DuckPolicyTests: XCTestCase {
    typealias M = RealMachine
    let sink = M.laptopIndex
    let policy = DuckPolicy()

    private func ducks(_ stream: StreamSnapshot) -> Bool {
        policy.shouldDuck(stream, onSink: sink, ownStreams: [M.lectorIndex])
    }

    func testDefaultLevel() {
        XCTAssertEqual(DuckPolicy().level, 0.3)
        XCTAssertEqual(DuckPolicy(level: 0.5).level, 0.5)
    }

    func testMusicAndVideoOnTheSameSinkAreDucked() {
        XCTAssertTrue(ducks(M.firefox(on: sink)))
        XCTAssertTrue(ducks(M.rhythmbox(on: sink)))
    }

    func testOtherSinksAreNot() {
        XCTAssertFalse(ducks(M.firefox(on: M.hdmiIndex)))
    }

    func testOurOwnStreamsAreNot() {
        XCTAssertFalse(ducks(M.lector(on: sink)))
        XCTAssertTrue(policy.shouldDuck(M.lector(on: sink), onSink: sink, ownStreams: []))
    }

    func testLoopbacksAreNot() {
        XCTAssertFalse(ducks(M.pipewirePulseLoopback(on: sink)))
        XCTAssertFalse(ducks(M.pwLoopback(on: sink)))
        XCTAssertFalse(ducks(M.pulseLoopback(on: sink)))
        var native = M.firefox(on: sink)
        native.ownerModule = "libpipewire-module-loopback"
        XCTAssertFalse(ducks(native))
        let named = StreamSnapshot(index: 5, device: sink, properties: ["node.name": "output.loopback-900-3"])
        XCTAssertFalse(ducks(named))
        // A stream merely named like one by an application is ducked.
        let app = StreamSnapshot(index: 6, device: sink, properties: ["media.name": "loopback practice.mp3"])
        XCTAssertTrue(ducks(app))
    }

    func testCallsAreNot() {
        XCTAssertFalse(ducks(M.callPlayback(on: sink)))
    }

    func testMutedSilentAndPausedStreamsAreNot() {
        var muted = M.firefox(on: sink)
        muted.muted = true
        XCTAssertFalse(ducks(muted))
        XCTAssertFalse(ducks(M.firefox(on: sink, volume: ChannelVolumes([0, 0]))))
        XCTAssertTrue(ducks(M.firefox(on: sink, volume: ChannelVolumes([0, 1]))), "one audible channel is enough")
        XCTAssertFalse(ducks(M.rhythmbox(on: sink, corked: true)))
    }

    // MARK: identity and restore keys

    func testIdentityFromProperties() {
        let identity = StreamIdentity(M.firefox(on: sink))
        XCTAssertEqual(identity, StreamIdentity(applicationName: "Firefox", processID: "4242", mediaName: "AudioStream", role: nil))
        XCTAssertEqual(StreamIdentity(M.rhythmbox(on: sink)).role, "music")
    }

    func testIdentityMatching() {
        let firefox = StreamIdentity(M.firefox(on: sink))
        var retitled = firefox
        retitled.mediaName = "Big Buck Bunny"
        XCTAssertTrue(firefox.matches(retitled), "same process: media.name may change per track")
        XCTAssertFalse(firefox.matches(StreamIdentity(M.firefox(on: sink, pid: "999"))), "another process")
        XCTAssertFalse(firefox.matches(StreamIdentity(M.rhythmbox(on: sink))))
        let noPID = StreamIdentity(applicationName: "mpg123", mediaName: "song")
        XCTAssertTrue(noPID.matches(StreamIdentity(applicationName: "mpg123", mediaName: "song")))
        XCTAssertFalse(noPID.matches(StreamIdentity(applicationName: "mpg123", mediaName: "other song")))
    }

    func testIdentityIsCodable() throws {
        let identity = StreamIdentity(M.rhythmbox(on: sink))
        let data = try JSONEncoder().encode(identity)
        XCTAssertEqual(try JSONDecoder().decode(StreamIdentity.self, from: data), identity)
    }

    func testStreamRestoreKeysInModuleStreamRestoreOrder() {
        XCTAssertEqual(StreamRestoreKey.key(for: ["module-stream-restore.id": "sink-input-by-media-name:loopback-15987-12 output",
                                                  "media.role": "music"]),
                       "sink-input-by-media-name:loopback-15987-12 output")
        XCTAssertEqual(StreamRestoreKey.key(for: ["media.role": "music", "application.id": "org.gnome.Rhythmbox3",
                                                  "application.name": "Rhythmbox", "media.name": "Playback Stream"]),
                       "sink-input-by-media-role:music")
        XCTAssertEqual(StreamRestoreKey.key(for: ["application.id": "org.gnome.Rhythmbox3", "application.name": "Rhythmbox",
                                                  "media.name": "Playback Stream"]),
                       "sink-input-by-application-id:org.gnome.Rhythmbox3")
        XCTAssertEqual(StreamRestoreKey.key(for: ["application.name": "Firefox", "media.name": "AudioStream"]),
                       "sink-input-by-application-name:Firefox")
        XCTAssertEqual(StreamRestoreKey.key(for: ["media.name": "AudioStream"]), "sink-input-by-media-name:AudioStream")
        XCTAssertNil(StreamRestoreKey.key(for: ["node.name": "x"]))
        XCTAssertNil(StreamRestoreKey.key(for: [:]))
    }

    func testEntryForAStream() {
        let entry = DuckEntry(stream: M.firefox(on: sink), level: 0.3)
        XCTAssertEqual(entry.stream, 63)
        XCTAssertEqual(entry.sink, sink)
        XCTAssertEqual(entry.original, ChannelVolumes([65536, 65536]))
        XCTAssertEqual(entry.target, ChannelVolumes([19661, 19661]))
        XCTAssertEqual(entry.restoreKey, "sink-input-by-application-name:Firefox")
        XCTAssertEqual(entry.volumesSet, [])
        XCTAssertNil(entry.lastSet)
    }
}
