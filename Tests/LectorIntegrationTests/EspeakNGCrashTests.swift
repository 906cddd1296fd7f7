import Foundation
import LectorTestKit
import XCTest

/// espeak-ng 1.51 (Debian 12) frees the translator it is using when a voice hands a word to
/// another language's translator holding a character that language does not know, and the
/// daemon died of it under the D-Bus fuzz (SIGSEGV in espeak_Synth). Here free() is made to
/// poison the memory it frees (an LD_PRELOAD shim compiled in the test), so the use after free
/// crashes every time instead of reading a block espeak-ng happened to reuse; then the texts
/// found to crash it are spoken. Before `EspeakInputGuard` each of them killed the daemon.
final class EspeakNGCrashTests: XCTestCase {
    static let shim = """
        #define _GNU_SOURCE
        #include <malloc.h>
        #include <string.h>
        /* Poisons what is freed and never reuses it: a use after free reads garbage. */
        void free(void *p) { if (p) memset(p, 0xA5, malloc_usable_size(p)); }
        """

    func testTextsThatCrashEspeakNG151AreSpokenAndTheDaemonLives() throws {
        let session = try TestSession(sinks: ["lector_test"])
        defer { session.shutdown() }
        let library = try session.compileSharedLibrary(Self.shim, to: session.directory.appendingPathComponent("poisonfree.so"))
        let daemon = try session.spawn(LectorExecutable.path, ["serve"],
                                       extraEnvironment: ["LECTOR_LOG": "stderr", "LD_PRELOAD": library.path])
        try session.waitForBusName("io.github.lector.Lector1", timeout: 15)
        // The shim is in effect (without it nothing below could crash).
        // (grep: Foundation reads only the start of a /proc file.)
        let mapped = try session.run("/bin/grep", ["-c", "poisonfree.so", "/proc/\(daemon.pid)/maps"])
        XCTAssertEqual(mapped.status, 0, "the daemon runs without the shim: \(mapped)\n\(daemon.output)")

        let texts = [
            "Room \u{0BEC}",                          // a Tamil digit, which English hands to Tamil
            "\u{1180}",                                // an archaic Hangul vowel
            "\u{A3061}\u{A716}",                        // unassigned, then a modifier tone letter
            "Your code is \u{F0000}\u{E123}\u{10FFFD} and \u{D7B0}\u{0D4F}.",   // private use and more
            "Room \u{0A66}, gate \u{0AE6}",         // Gurmukhi and Gujarati digits (the scan of every voice)
        ]
        for text in texts {
            let said = try session.run(LectorExecutable.path, ["say", "-w", text], timeout: 30)
            XCTAssertEqual(said.status, 0, "lector say \(text.debugDescription): \(said)\n\(daemon.output)")
            XCTAssertTrue(daemon.isRunning, "the daemon died speaking \(text.debugDescription):\n\(daemon.output)")
        }
        let plain = try session.run(LectorExecutable.path, ["say", "-w", "Still here."], timeout: 30)
        XCTAssertEqual(plain.status, 0, "\(plain)\n\(daemon.output)")
        XCTAssertFalse(daemon.output.contains("Program crashed"), daemon.output)
    }
}
