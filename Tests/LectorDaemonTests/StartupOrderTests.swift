@testable import LectorDaemon
import XCTest

/// Teardown is start-up reversed: what started last stops first, each once.
final class StartupOrderTests: XCTestCase {
    func testStopsInReverseOrderOfStartOnce() {
        MainActor.assumeIsolated {
            let startup = StartupOrder()
            var stopped: [String] = []
            for name in ["event loop", "espeak-ng", "bus", "sound server", "narrator"] {
                startup.add(name) { stopped.append(name) }
            }
            XCTAssertEqual(startup.names, ["event loop", "espeak-ng", "bus", "sound server", "narrator"])
            startup.stopAll()
            XCTAssertEqual(stopped, ["narrator", "sound server", "bus", "espeak-ng", "event loop"])
            startup.stopAll()
            XCTAssertEqual(stopped.count, 5, "a second teardown stops nothing again")
            XCTAssertEqual(startup.names, [])
        }
    }

    /// A component that starts while the daemon runs (the exit deadline) stops before the ones
    /// that were there from the start.
    func testALateComponentStopsFirst() {
        MainActor.assumeIsolated {
            let startup = StartupOrder()
            var stopped: [String] = []
            startup.add("bus") { stopped.append("bus") }
            startup.add("library") { stopped.append("library") }
            startup.add("exit deadline") { stopped.append("exit deadline") }
            startup.stopAll()
            XCTAssertEqual(stopped, ["exit deadline", "library", "bus"])
        }
    }
}
