import LectorTestKit
import XCTest

final class RouteChangeTests: XCTestCase {
    func testSessionStarts() throws {
        let session = try TestSession()
        defer { session.shutdown() }
        XCTAssertTrue(try session.run("pactl", ["info"]).succeeded)
    }
}
