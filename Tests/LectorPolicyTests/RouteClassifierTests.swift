import LectorPolicy
import XCTest

final class RouteClassifierTests: XCTestCase {
    typealias M = RealMachine
    let me = M.lectorIndex

    private func loss(_ before: AudioSnapshot, _ after: AudioSnapshot) -> RouteLoss? {
        RouteClassifier.loss(ofStream: me, before: before, after: after)
    }

    // MARK: the watch: audible or not, PipeWire's relinks

    /// A watch after Play that has seen `snapshot`.
    private func watch(seeing snapshot: AudioSnapshot) -> RouteWatch {
        var watch = RouteWatch()
        watch.playStarted()
        XCTAssertNil(watch.loss(ofStream: me, before: snapshot, after: snapshot))
        return watch
    }

    func testAMoveOfAStreamCorkedUntilPlayLosesNothingButOtherLossesDo() {
        let sinks = [M.laptopHeadphonesIn, M.hdmi(.yes)]
        let corked = M.snapshot(sinks, [M.lector(on: M.laptopIndex, corked: true)])
        var watch = RouteWatch()
        _ = watch.loss(ofStream: me, before: corked, after: corked)
        // `pactl set-default-sink hdmi; playerctl play`: the move's event after Play's.
        watch.playStarted()
        let moved = M.snapshot(sinks, [M.lector(on: M.hdmiIndex, corked: false)])
        XCTAssertNil(watch.loss(ofStream: me, before: corked, after: moved))
        // A removed device is a loss whatever the cork said.
        var fresh = RouteWatch()
        fresh.playStarted()
        let removed = M.snapshot([M.hdmi(.yes)], [M.lector(on: M.laptopIndex, corked: true)])
        XCTAssertEqual(fresh.loss(ofStream: me, before: corked, after: removed), .deviceRemoved(sink: M.laptopName))
    }

    func testACorkedReportAfterTheStreamWasSeenRunningIsNoExcuse() {
        let sinks = [M.laptopHeadphonesIn, M.hdmi(.yes)]
        let running = M.snapshot(sinks, [M.lector(on: M.laptopIndex, corked: false)])
        // PipeWire: "corked" while its node is not running, here in the middle of a move.
        let notRunning = M.snapshot(sinks, [M.lector(on: M.laptopIndex, corked: true)])
        var watch = watch(seeing: running)
        XCTAssertNil(watch.loss(ofStream: me, before: running, after: notRunning))
        let moved = M.snapshot(sinks, [M.lector(on: M.hdmiIndex, corked: true)])
        XCTAssertEqual(watch.loss(ofStream: me, before: notRunning, after: moved),
                       .streamMoved(from: M.laptopName, to: M.hdmiName))
    }

    /// PipeWire mid-move: attached to no sink, and "corked" as its node is not running.
    private let detached = M.snapshot([M.laptopHeadphonesIn, M.usbHeadset], [M.lector(on: UInt32.max, corked: true)])

    func testAMoveThroughADetachedStreamIsAMove() {
        let sinks = [M.laptopHeadphonesIn, M.usbHeadset]
        let playing = M.snapshot(sinks, [M.lector(on: M.laptopIndex, corked: false)])
        let moved = M.snapshot(sinks, [M.lector(on: M.usbHeadsetIndex, corked: false)])
        var watch = watch(seeing: playing)
        XCTAssertNil(watch.loss(ofStream: me, before: playing, after: detached))
        XCTAssertEqual(watch.loss(ofStream: me, before: detached, after: moved),
                       .streamMoved(from: M.laptopName, to: M.usbHeadsetName))
    }

    func testADetachedStreamWhoseSinkGoesIsADeviceRemovedAndOneRelinkedInPlaceIsNothing() {
        let playing = M.snapshot([M.laptopHeadphonesIn, M.usbHeadset], [M.lector(on: M.usbHeadsetIndex, corked: false)])
        var watch = watch(seeing: playing)
        XCTAssertNil(watch.loss(ofStream: me, before: playing, after: detached))
        XCTAssertNil(watch.loss(ofStream: me, before: detached, after: playing), "back where it was")
        XCTAssertNil(watch.loss(ofStream: me, before: playing, after: detached))
        let gone = M.snapshot([M.laptopHeadphonesIn], [M.lector(on: UInt32.max, corked: true)])
        XCTAssertEqual(watch.loss(ofStream: me, before: detached, after: gone), .deviceRemoved(sink: M.usbHeadsetName))
        // The headset comes back (a new index), the listener plays, PipeWire attaches the stream:
        // that removal was told once, and is not told again.
        var back = M.usbHeadset
        back.index = 99
        let returned = M.snapshot([M.laptopHeadphonesIn, back], [M.lector(on: UInt32.max, corked: true)])
        XCTAssertNil(watch.loss(ofStream: me, before: gone, after: returned))
        watch.playStarted()
        let playing2 = M.snapshot([M.laptopHeadphonesIn, back], [M.lector(on: 99, corked: false)])
        XCTAssertNil(watch.loss(ofStream: me, before: returned, after: playing2))
    }

    // MARK: (a) laptop analog jack

    func testHeadphonesGoingUnavailableBeforePulseAudioSwitchesPort() {
        let before = M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])
        let after = M.snapshot([M.laptopHeadphonesOutNotSwitched], [M.lector(on: M.laptopIndex)])
        XCTAssertEqual(loss(before, after), .headphonesUnplugged(sink: M.laptopName, port: "analog-output-headphones"))
    }

    func testHeadphonesUnpluggedAndSwitchedToSpeakersInOneEvent() {
        let before = M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])
        XCTAssertEqual(loss(before, after), .headphonesUnplugged(sink: M.laptopName, port: "analog-output-headphones"))
    }

    func testPortSwitchedToSpeakersSeenBeforeAvailability() {
        let before = M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])
        let switchedOnly = M.laptop(active: "analog-output-speaker", speaker: .no, headphones: .yes)
        XCTAssertEqual(loss(before, M.snapshot([switchedOnly], [M.lector(on: M.laptopIndex)])),
                       .headphonesUnplugged(sink: M.laptopName, port: "analog-output-headphones"))
    }

    func testTheFollowUpEventAfterTheSwitchIsNotASecondLoss() {
        let before = M.snapshot([M.laptopHeadphonesOutNotSwitched], [M.lector(on: M.laptopIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])
        // Already reported when the port went unavailable: PulseAudio's switch that follows is
        // the same unplug, not a second pause.
        XCTAssertNil(loss(before, after))
        XCTAssertNil(loss(after, after))
    }

    func testPluggingHeadphonesInIsNotALoss() {
        let before = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])
        let plugged = M.laptop(active: "analog-output-speaker", speaker: .no, headphones: .yes)
        XCTAssertNil(loss(before, M.snapshot([plugged], [M.lector(on: M.laptopIndex)])))
        XCTAssertNil(loss(M.snapshot([plugged], [M.lector(on: M.laptopIndex)]),
                          M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])))
    }

    func testAvailabilityUnknownToYesIsNotALoss() {
        let unknown = M.laptop(active: "analog-output-headphones", speaker: .unknown, headphones: .unknown)
        XCTAssertNil(loss(M.snapshot([unknown], [M.lector(on: M.laptopIndex)]),
                          M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])))
    }

    func testHeadphonesAlreadyUnavailableStayingSoIsNotALoss() {
        // The user forced the headphone port although jack sensing says nothing is plugged.
        let forced = M.laptop(active: "analog-output-headphones", speaker: .unknown, headphones: .no)
        XCTAssertNil(loss(M.snapshot([forced], [M.lector(on: M.laptopIndex)]),
                          M.snapshot([forced], [M.lector(on: M.laptopIndex)])))
        // Nothing was plugged in, so switching back to the speakers loses no headphones.
        XCTAssertNil(loss(M.snapshot([forced], [M.lector(on: M.laptopIndex)]),
                          M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])))
    }

    func testOlderServerReportsUnknownPortTypesAndTheNameDecides() {
        let before = M.snapshot([M.laptop(active: "analog-output-headphones", speaker: .no, headphones: .yes,
                                          headphonesKind: .unknown, speakerKind: .unknown)],
                                [M.lector(on: M.laptopIndex)])
        let after = M.snapshot([M.laptop(active: "analog-output-speaker", speaker: .unknown, headphones: .no,
                                         headphonesKind: .unknown, speakerKind: .unknown)],
                               [M.lector(on: M.laptopIndex)])
        XCTAssertEqual(loss(before, after), .headphonesUnplugged(sink: M.laptopName, port: "analog-output-headphones"))
        // And the speaker going away on such a server is not private listening.
        XCTAssertNil(loss(after, M.snapshot([M.laptop(active: "analog-output-headphones", speaker: .no, headphones: .yes,
                                                      headphonesKind: .unknown, speakerKind: .unknown)],
                                            [M.lector(on: M.laptopIndex)])))
    }

    func testVolumeOrMuteChangesOnTheSinkAreNotALoss() {
        let before = M.snapshot([M.laptopHeadphonesIn], [M.lector(on: M.laptopIndex)])
        let louder = M.laptop(active: "analog-output-headphones", speaker: .no, headphones: .yes,
                              volume: ChannelVolumes([65536, 65536]), muted: true)
        XCTAssertNil(loss(before, M.snapshot([louder], [M.lector(on: M.laptopIndex)])))
    }

    // MARK: (b) USB headset removed, stream rescued to the laptop

    func testUSBHeadsetRemovedAndStreamMovedInOneStep() {
        let before = M.snapshot([M.laptopHeadphonesOut, M.usbHeadset], [M.lector(on: M.usbHeadsetIndex)],
                                defaultSink: M.usbHeadsetName)
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)], defaultSink: M.laptopName)
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: M.usbHeadsetName))
    }

    func testUSBHeadsetRemovedBeforeTheStreamMoveIsSeen() {
        let before = M.snapshot([M.laptopHeadphonesOut, M.usbHeadset], [M.lector(on: M.usbHeadsetIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.usbHeadsetIndex)])
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: M.usbHeadsetName))
        // The move that follows: our stream was on a sink unknown to `before`: nothing more.
        XCTAssertNil(loss(after, M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])))
    }

    func testStreamMoveSeenBeforeTheUSBSinkDisappears() {
        // The server rescues streams before it removes the sink; if the move is seen first it
        // pauses as a move, and the removal that follows is no second loss.
        let before = M.snapshot([M.laptopHeadphonesOut, M.usbHeadset], [M.lector(on: M.usbHeadsetIndex)])
        let moved = M.snapshot([M.laptopHeadphonesOut, M.usbHeadset], [M.lector(on: M.laptopIndex)])
        XCTAssertEqual(loss(before, moved), .streamMoved(from: M.usbHeadsetName, to: M.laptopName))
        XCTAssertNil(loss(moved, M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])))
    }

    func testUSBHeadsetIndexReusedByAnotherSinkIsStillARemoval() {
        var impostor = M.nullSpeakers
        impostor.index = M.usbHeadsetIndex
        let before = M.snapshot([M.laptopHeadphonesOut, M.usbHeadset], [M.lector(on: M.usbHeadsetIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut, impostor], [M.lector(on: M.usbHeadsetIndex)])
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: M.usbHeadsetName))
    }

    // MARK: (c) Bluetooth headphones disconnected

    func testPulseAudioBluetoothSinkRemoved() {
        let before = M.snapshot([M.laptopHeadphonesOut, M.pulseBluetooth], [M.lector(on: M.pulseBluetoothIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: "bluez_sink.00_1B_66_AA_BB_CC.a2dp_sink"))
        XCTAssertEqual(loss(before, after)?.pausedBecause, "device-removed")
    }

    func testPipeWireBluetoothSinkRemoved() {
        let before = M.snapshot([M.laptopHeadphonesOut, M.pipewireBluetooth], [M.lector(on: M.pipewireBluetoothIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.pipewireBluetoothIndex)])
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: "bluez_output.00_1B_66_AA_BB_CC.1"))
    }

    func testBluetoothHeadphonesConnectingIsNotALoss() {
        let before = M.snapshot([M.laptopHeadphonesOut], [M.lector(on: M.laptopIndex)])
        let after = M.snapshot([M.laptopHeadphonesOut, M.pipewireBluetooth], [M.lector(on: M.laptopIndex)],
                               defaultSink: M.pipewireBluetooth.name)
        XCTAssertNil(loss(before, after))
    }

    func testBluetoothPortGoingUnavailableWhileTheSinkStays() {
        var gone = M.pulseBluetooth
        gone.ports[0].availability = .no
        let before = M.snapshot([M.pulseBluetooth], [M.lector(on: M.pulseBluetoothIndex)])
        XCTAssertEqual(loss(before, M.snapshot([gone], [M.lector(on: M.pulseBluetoothIndex)])),
                       .headphonesUnplugged(sink: "bluez_sink.00_1B_66_AA_BB_CC.a2dp_sink", port: "headphone-output"))
    }

    // MARK: (d) HDMI

    func testHDMIUnpluggedIsNotALoss() {
        let before = M.snapshot([M.hdmi(.yes)], [M.lector(on: M.hdmiIndex)])
        XCTAssertNil(loss(before, M.snapshot([M.hdmi(.no)], [M.lector(on: M.hdmiIndex)])))
    }

    func testSpeakersToHDMIPortSwitchIsNotALoss() {
        // A card whose one sink has both (some UCM profiles): switching between public outputs.
        var sink = M.laptop(active: "analog-output-speaker")
        sink.ports.append(PortSnapshot(name: "hdmi-output-0", description: "HDMI / DisplayPort", kind: .hdmi, availability: .yes))
        var switched = sink
        switched.activePort = "hdmi-output-0"
        XCTAssertNil(loss(M.snapshot([sink], [M.lector(on: M.laptopIndex)]), M.snapshot([switched], [M.lector(on: M.laptopIndex)])))
        XCTAssertNil(loss(M.snapshot([switched], [M.lector(on: M.laptopIndex)]), M.snapshot([sink], [M.lector(on: M.laptopIndex)])))
    }

    // MARK: (e) null sinks (integration tests)

    func testNullSinkUnloaded() {
        let before = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])
        let after = M.snapshot([M.nullSpeakers], [M.lector(on: M.nullSpeakers.index)])
        XCTAssertEqual(loss(before, after), .deviceRemoved(sink: "hp"))
    }

    func testStreamMovedBetweenNullSinks() {
        let before = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])
        let after = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullSpeakers.index)])
        XCTAssertEqual(loss(before, after), .streamMoved(from: "hp", to: "spk"))
        XCTAssertEqual(loss(before, after)?.pausedBecause, "stream-moved")
    }

    func testDefaultSinkChangeAloneIsNotALoss() {
        let before = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)], defaultSink: "hp")
        let after = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)], defaultSink: "spk")
        XCTAssertNil(loss(before, after))
    }

    func testAnotherSinkRemovedIsNotALoss() {
        let before = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])
        XCTAssertNil(loss(before, M.snapshot([M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])))
    }

    // MARK: our stream missing

    func testNothingWithoutOurStreamOnBothSides() {
        let with = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])
        let without = M.snapshot([M.nullSpeakers])
        XCTAssertNil(loss(without, with))
        XCTAssertNil(loss(with, without))
        XCTAssertNil(RouteClassifier.loss(ofStream: 999, before: with, after: with))
    }

    func testMovedToASinkNotYetKnownIsNothingYet() {
        let before = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: M.nullHeadphones.index)])
        let after = M.snapshot([M.nullSpeakers, M.nullHeadphones], [M.lector(on: 4_294_967_295)])
        XCTAssertNil(loss(before, after))
    }

    // MARK: descriptions

    func testReasonsAndJournalSentences() {
        XCTAssertEqual(RouteLoss.deviceRemoved(sink: "hp").pausedBecause, "device-removed")
        XCTAssertEqual(RouteLoss.headphonesUnplugged(sink: "x", port: "p").pausedBecause, "headphones-unplugged")
        XCTAssertEqual(RouteLoss.streamMoved(from: "a", to: "b").pausedBecause, "stream-moved")
        XCTAssertEqual(RouteLoss.deviceRemoved(sink: "hp").logDescription, "Output device hp was removed; pausing.")
        XCTAssertEqual(RouteLoss.headphonesUnplugged(sink: M.laptopName, port: "analog-output-headphones").logDescription,
                       "Headphones unplugged (port analog-output-headphones of \(M.laptopName)); pausing.")
        XCTAssertEqual(RouteLoss.streamMoved(from: "hp", to: "spk").logDescription, "Playback moved from hp to spk; pausing.")
    }

    func testPrivateListeningPorts() {
        for kind: PortSnapshot.Kind in [.headphones, .headset, .handset, .earpiece, .handsfree] {
            XCTAssertTrue(PortSnapshot(name: "x", kind: kind).isPrivateListening, "\(kind)")
        }
        for kind: PortSnapshot.Kind in [.speaker, .hdmi, .line, .spdif, .analog, .usb, .bluetooth, .car, .tv] {
            XCTAssertFalse(PortSnapshot(name: "headphone-output", kind: kind).isPrivateListening, "\(kind)")
        }
        XCTAssertTrue(PortSnapshot(name: "Headset-Output").isPrivateListening)
        XCTAssertFalse(PortSnapshot(name: "analog-output-lineout").isPrivateListening)
    }
}
