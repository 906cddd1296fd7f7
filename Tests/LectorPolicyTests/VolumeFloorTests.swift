import LectorPolicy
import XCTest

final class VolumeFloorTests: XCTestCase {
    typealias M = RealMachine

    private func laptop(_ volume: [UInt32], muted: Bool = false) -> SinkSnapshot {
        M.laptop(volume: ChannelVolumes(volume), muted: muted)
    }

    func testLoudEnoughSinkIsLeftAlone() {
        XCTAssertEqual(VolumeFloor.plan(for: laptop([45875, 45875]), floor: 0.2, important: false), .none)
        XCTAssertEqual(VolumeFloor.plan(for: laptop([13107, 13107]), floor: 0.2, important: true), .none, "exactly the floor")
        XCTAssertEqual(VolumeFloor.plan(for: laptop([13107, 0]), floor: 0.2, important: false), .none, "the loudest channel counts")
    }

    func testQuietSinkIsRaisedToTheFloorKeepingTheBalance() {
        XCTAssertEqual(VolumeFloor.plan(for: laptop([6554, 6554]), floor: 0.2, important: false),
                       .raise(to: ChannelVolumes([13107, 13107])))
        XCTAssertEqual(VolumeFloor.plan(for: laptop([6554, 3277]), floor: 0.2, important: false),
                       .raise(to: ChannelVolumes([13107, 6554])))
        XCTAssertEqual(VolumeFloor.plan(for: laptop([0, 0]), floor: 0.2, important: false),
                       .raise(to: ChannelVolumes([13107, 13107])), "silent: both channels to the floor")
    }

    func testMutedSinkStaysMutedUnlessImportant() {
        XCTAssertEqual(VolumeFloor.plan(for: laptop([45875, 45875], muted: true), floor: 0.2, important: false), .muted)
        XCTAssertEqual(VolumeFloor.plan(for: laptop([6554, 6554], muted: true), floor: 0.2, important: false), .muted)
        XCTAssertEqual(VolumeFloor.plan(for: laptop([45875, 45875], muted: true), floor: 0.2, important: true),
                       .unmute(andRaiseTo: nil))
        XCTAssertEqual(VolumeFloor.plan(for: laptop([6554, 6554], muted: true), floor: 0.2, important: true),
                       .unmute(andRaiseTo: ChannelVolumes([13107, 13107])))
    }

    func testFloorOutOfRange() {
        XCTAssertEqual(VolumeFloor.plan(for: laptop([0, 0]), floor: 0, important: false), .none)
        XCTAssertEqual(VolumeFloor.plan(for: laptop([0, 0]), floor: -1, important: false), .none)
        XCTAssertEqual(VolumeFloor.plan(for: laptop([30000, 30000]), floor: 3, important: false),
                       .raise(to: ChannelVolumes([65536, 65536])), "a floor above 100 % is 100 %")
    }

    // MARK: SinkRaise

    func testRaiseFromAPlan() {
        let sink = laptop([6554, 3277])
        XCTAssertNil(SinkRaise(sink, plan: .none))
        XCTAssertNil(SinkRaise(sink, plan: .muted))
        XCTAssertEqual(SinkRaise(sink, plan: .raise(to: ChannelVolumes([13107, 6554]))),
                       SinkRaise(sink: M.laptopIndex, name: M.laptopName, original: ChannelVolumes([6554, 3277]),
                                 raised: ChannelVolumes([13107, 6554]), unmuted: false))
        XCTAssertEqual(SinkRaise(sink, plan: .unmute(andRaiseTo: nil))?.unmuted, true)
        XCTAssertNil(SinkRaise(sink, plan: .unmute(andRaiseTo: nil))?.raised)
    }

    func testUndoOnlyWhatIsStillAsWeLeftIt() {
        let raise = SinkRaise(sink: M.laptopIndex, name: M.laptopName, original: ChannelVolumes([6554, 6554]),
                              raised: ChannelVolumes([13107, 13107]), unmuted: false)
        XCTAssertEqual(raise.undo(current: laptop([13107, 13107])),
                       [.setSinkVolume(sink: M.laptopIndex, volume: ChannelVolumes([6554, 6554]))])
        XCTAssertEqual(raise.undo(current: laptop([30000, 30000])), [], "the user turned it up meanwhile")
        var other = M.nullSpeakers
        other.index = M.laptopIndex
        other.volume = ChannelVolumes([13107, 13107])
        XCTAssertEqual(raise.undo(current: other), [], "another sink under that index")
    }

    func testUndoAnUnmute() {
        let unmute = SinkRaise(sink: M.laptopIndex, name: M.laptopName, original: ChannelVolumes([45875, 45875]),
                               raised: nil, unmuted: true)
        XCTAssertEqual(unmute.undo(current: laptop([45875, 45875])), [.setSinkMute(sink: M.laptopIndex, muted: true)])
        XCTAssertEqual(unmute.undo(current: laptop([45875, 45875], muted: true)), [], "already muted again")
        XCTAssertEqual(unmute.undo(current: laptop([50000, 50000])), [], "the user is using it: leave it audible")

        let both = SinkRaise(sink: M.laptopIndex, name: M.laptopName, original: ChannelVolumes([6554, 6554]),
                             raised: ChannelVolumes([13107, 13107]), unmuted: true)
        XCTAssertEqual(both.undo(current: laptop([13107, 13107])),
                       [.setSinkMute(sink: M.laptopIndex, muted: true),
                        .setSinkVolume(sink: M.laptopIndex, volume: ChannelVolumes([6554, 6554]))])
    }
}
