import LectorConfig
import XCTest

final class ConfigurationTests: XCTestCase {
    func testDefaultsAreEqual() { XCTAssertEqual(Configuration(), Configuration()) }
}
