import Foundation
import LectorTestKit
import XCTest

/// A book that needs blocks of many megabytes (a 10-MB text on one line: the line, then its
/// chapter's text) and is then replaced by a small one leaves little more resident than the
/// small one did: the daemon pins glibc's mmap threshold (LectorService), so such blocks are
/// mapped for themselves and given back when freed. With glibc's rising threshold the next ones
/// stayed in malloc's arenas: 30 MB more after this test's steps, 6.5-6.8 MB with the pin.
final class LargeBlockMemoryTests: XCTestCase {
    func testAOneLineTextReplacedLeavesNoLargeBlocksBehind() throws {
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        let small = try TextBooks.write(TextBooks.threeShortChapters, named: "small.txt", in: fixture.session.directory)
        let oneLine = fixture.session.directory.appendingPathComponent("one-line.txt")
        try Data(String(repeating: "word ", count: 2_000_000).utf8).write(to: oneLine)
        let pid = fixture.daemon.pid

        try fixture.openAndHear(small)
        XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Pause", []).succeeded)
        Thread.sleep(forTimeInterval: 1)
        let before = try XCTUnwrap(ProcessProbe.residentKiB(pid))

        let called = try fixture.open(oneLine)
        XCTAssertNotNil(fixture.sound(after: called, timeout: 60), "the one-line text was not heard\(fixture.context)")
        let peak = try XCTUnwrap(ProcessProbe.peakResidentKiB(pid))
        try fixture.openAndHear(small)
        XCTAssertTrue(try fixture.busCall(PlayerFixture.player, "Pause", []).succeeded)
        Thread.sleep(forTimeInterval: 1)
        let after = try XCTUnwrap(ProcessProbe.residentKiB(pid))
        print("one-line text: RSS with the small book \(before) kB, peak with the 10-MB line \(peak) kB, small book again \(after) kB")
        XCTAssertGreaterThan(peak, before + 20 * 1024, "the 10-MB line took no large blocks: the test measures nothing")
        XCTAssertLessThanOrEqual(after, before + 12 * 1024, "the small book again, \(after - before) kB more resident than before")
    }
}
