@testable import LectorBooks
import XCTest

final class CreatorNameTests: XCTestCase {
    func testAddressesInAngleBracketsAreNotPartOfTheName() {
        XCTAssertEqual(PackageDocument.displayName("Live Systems Project <debian-live@lists.debian.org>"), "Live Systems Project")
        XCTAssertEqual(PackageDocument.displayName("Ann <https://ann.example>"), "Ann")
        XCTAssertEqual(PackageDocument.displayName("T.S. Eliot"), "T.S. Eliot")
        XCTAssertEqual(PackageDocument.displayName("<nobody@example.org>"), "<nobody@example.org>", "nothing else to show")
        XCTAssertEqual(PackageDocument.displayName("Less <than> more"), "Less <than> more", "not an address")
    }
}
