import XCTest
final class PlayerPlaceholderTests: XCTestCase { func testNothing() {} }
