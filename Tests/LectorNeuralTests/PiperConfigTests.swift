import Foundation
import XCTest
@testable import LectorNeural

final class PiperConfigTests: XCTestCase {
    static var minimal: [String: Any] { [
        "audio": ["sample_rate": 22050, "quality": "medium"],
        "espeak": ["voice": "en-us"],
        "inference": ["noise_scale": 0.5, "length_scale": 1.25, "noise_w": 0.7],
        "num_speakers": 1,
        "phoneme_id_map": ["_": [0], "^": [1], "$": [2], " ": [3], "a": [14], "ˈ": [120]],
    ] }

    func load(_ object: [String: Any]) throws -> PiperConfig {
        try PiperConfig(json: try JSONSerialization.data(withJSONObject: object), path: "v.onnx.json")
    }

    func removing(_ dotted: String, from object: [String: Any] = minimal) -> [String: Any] {
        var object = object
        let keys = dotted.split(separator: ".").map(String.init)
        if keys.count == 1 {
            object[keys[0]] = nil
        } else {
            object[keys[0]] = removing(keys[1...].joined(separator: "."), from: object[keys[0]] as! [String: Any])
        }
        return object
    }

    func testReadsEveryField() throws {
        let config = try load(Self.minimal)
        XCTAssertEqual(config.sampleRate, 22050)
        XCTAssertEqual(config.quality, "medium")
        XCTAssertEqual(config.espeakVoice, "en-us")
        XCTAssertEqual(config.noiseScale, 0.5)
        XCTAssertEqual(config.lengthScale, 1.25)
        XCTAssertEqual(config.noiseW, 0.7)
        XCTAssertEqual(config.numSpeakers, 1)
        XCTAssertEqual(config.hopLength, 256)
        XCTAssertEqual(config.phonemeIDMap["ˈ"], [120])
    }

    func testInferenceDefaultsAsPiper() throws {
        let config = try load(removing("inference"))
        XCTAssertEqual(config.noiseScale, 0.667)
        XCTAssertEqual(config.lengthScale, 1)
        XCTAssertEqual(config.noiseW, 0.8)
    }

    func testMissingFieldsAreNamed() {
        for field in ["audio.sample_rate", "espeak.voice", "num_speakers", "phoneme_id_map", "audio", "espeak"] {
            let expected = field.contains(".") || field == "num_speakers" || field == "phoneme_id_map"
                ? field : field == "audio" ? "audio.sample_rate" : "espeak.voice"
            XCTAssertThrowsError(try load(removing(field)), field) { error in
                XCTAssertEqual(error as? NeuralError, .configMissingField(path: "v.onnx.json", field: expected))
            }
        }
        var map = Self.minimal["phoneme_id_map"] as! [String: Any]
        map["^"] = nil
        var object = Self.minimal
        object["phoneme_id_map"] = map
        XCTAssertThrowsError(try load(object)) { error in
            XCTAssertEqual(error as? NeuralError, .configMissingField(path: "v.onnx.json", field: "phoneme_id_map[\"^\"]"))
        }
    }

    func testWrongTypesAndValuesAreNamed() {
        var object = Self.minimal
        object["audio"] = ["sample_rate": "22050"]
        XCTAssertThrowsError(try load(object)) { error in
            guard case .configInvalidField(_, "audio.sample_rate", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        object = Self.minimal
        object["phoneme_type"] = "pinyin"
        XCTAssertThrowsError(try load(object)) { error in
            guard case .configInvalidField(_, "phoneme_type", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        object = Self.minimal
        object["phoneme_id_map"] = ["_": [0], "^": [1], "$": [2], "a": "14"]
        XCTAssertThrowsError(try load(object)) { error in
            guard case .configInvalidField(_, "phoneme_id_map[\"a\"]", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
    }

    func testVowelClusters() throws {
        var object = Self.minimal
        object["vowel_clusters"] = [["a", "ˈ"]]
        var map = object["phoneme_id_map"] as! [String: Any]
        map["aˈ"] = [200]
        object["phoneme_id_map"] = map
        XCTAssertEqual(try load(object).vowelClusters, [["a", "ˈ"]])
        XCTAssertEqual(try load(Self.minimal).vowelClusters, [])
        object["vowel_clusters"] = [["a", " "]]
        XCTAssertThrowsError(try load(object)) { error in
            guard case .configInvalidField(_, "vowel_clusters", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
    }

    /// Mutated configs: loaded or refused with a NeuralError, never a trap.
    func testMutatedConfigsNeverTrap() throws {
        let seed = [UInt8](try JSONSerialization.data(withJSONObject: Self.minimal))
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                _ = try PiperConfig(json: Data(bytes), path: "f.json")
            } catch {
                XCTAssertTrue(error is NeuralError, "\(error)")
            }
        }
    }

    func testNotJSONAndMissingFile() {
        XCTAssertThrowsError(try PiperConfig(json: Data("{\"audio\": ".utf8), path: "x.json")) { error in
            guard case .configUnreadable(path: "x.json", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try PiperConfig(contentsOf: "/nonexistent/v.onnx.json")) { error in
            guard case .configUnreadable(path: "/nonexistent/v.onnx.json", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
    }
}
