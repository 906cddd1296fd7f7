import Foundation
@testable import LectorNeural
import XCTest

/// The worker's framing: every message survives the trip however the stream is cut, and a
/// hostile or broken stream is refused by name, never read past its end.
final class WorkerMessageTests: XCTestCase {
    let messages: [WorkerMessage] = [
        .synthesize(ids: [1, 0, 20, 0, 2], lengthScale: 0.8),
        .synthesize(ids: [], lengthScale: 1),
        .cancel,
        .ready(sampleRate: 22_050, runtime: "/usr/lib/libonnxruntime.so.1 1.21.0"),
        .audio(PiperAudio(samples: [0, 0.5, -1, 0.25], sampleRate: 16_000, idSamples: [2, 0, 2])),
        .failed("voice model é.onnx is not a whole ONNX model: cut short"),
        .cancelled,
    ]

    func testEveryMessageSurvivesTheTripCutAnywhere() throws {
        let stream = messages.flatMap { $0.encoded() }
        for chunk in [1, 3, 7, 64, stream.count] {
            var reader = WorkerMessage.Reader()
            var read: [WorkerMessage] = []
            var at = 0
            while at < stream.count {
                reader.append(stream[at..<min(stream.count, at + chunk)])
                at += chunk
                while let message = try reader.next() { read.append(message) }
            }
            XCTAssertEqual(read, messages, "chunks of \(chunk)")
        }
    }

    func testBrokenFramesAreRefusedByName() {
        func refusal(_ bytes: [UInt8]) -> String? {
            var reader = WorkerMessage.Reader()
            reader.append(bytes[...])
            do {
                _ = try reader.next()
                return nil
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(refusal([0, 0, 0, 0]), "a frame of 0 bytes")
        XCTAssertEqual(refusal([255, 255, 255, 255]), "a frame of 4294967295 bytes")
        XCTAssertEqual(refusal([1, 0, 0, 0, 9]), "a message of unknown kind 9")
        // A synthesize that claims more ids than its frame holds.
        XCTAssertEqual(refusal([9, 0, 0, 0, 1, 0, 0, 128, 63, 200, 0, 0, 0]), "a message cut short")
        XCTAssertEqual(refusal([2, 0, 0, 0, 2, 7]), "1 stray bytes after a message of kind 2")
    }

    /// Mutated frames: each is refused or read, never a crash or a read past its end.
    func testMutatedFramesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let frames = messages.map { $0.encoded() }
        for round in 0..<5_000 {
            var bytes = frames[round % frames.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            var reader = WorkerMessage.Reader()
            reader.append(bytes[...])
            _ = try? reader.next()
        }
    }
}
