import LectorPolicy
import XCTest

final class ChannelVolumesTests: XCTestCase {
    func testScalingIsWhatPactlShows() {
        let music = ChannelVolumes([65536, 32768])
        XCTAssertEqual(music.scaled(by: 0.3), ChannelVolumes([19661, 9830]))
        XCTAssertEqual(music.scaled(by: 0.3).description, "30%/15%")
        XCTAssertEqual(ChannelVolumes(channels: 2, value: 65536).description, "100%")
    }
}
