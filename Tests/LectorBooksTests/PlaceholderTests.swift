import XCTest
final class BooksPlaceholderTests: XCTestCase { func testNothing() {} }
