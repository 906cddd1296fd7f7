// libFuzzer target over the neural voice loader's own parsers: a voice's .onnx.json (PiperConfig
// and its phoneme map), its .onnx (ONNXGraphPatch, which reads the whole protobuf to add the
// durations output) and the worker's frames (WorkerMessage.Reader).
// Built and run by scripts/fuzz-voices (docs/fuzzing.md); not part of the package build.
// ONNX Runtime itself runs a model only in the worker process (lector-piper), so a model that
// crashes it costs that process, not the daemon (PiperWorkerTests).
import Foundation
import LectorNeural

/// The first byte picks the path; the rest is the input:
///   0  a voice config (.onnx.json), then its phoneme map applied to every phoneme it names
///   1  a model (.onnx), patched for its durations output, and the result patched again
///   2  a byte stream from the worker, read frame by frame
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVoices(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = UnsafeRawBufferPointer(start: start + 1, count: count - 1)
    switch start.pointee % 3 {
    case 0:
        guard let config = try? PiperConfig(json: Data(body), path: "fuzz.onnx.json") else { return 0 }
        let ids = PhonemeIDs(map: config.phonemeIDMap, clusters: config.vowelClusters)
        _ = ids.mapping(of: ids.mergingClusters(config.phonemeIDMap.keys.sorted() + ["ə", " ", "."]))
        _ = try? ids.ids(forIPA: config.phonemeIDMap.keys.sorted().joined() + "hˈɛloʊ wˈɜːld.")
    case 1:
        guard let patched = try? ONNXGraphPatch.addingDurationsOutput(to: body) else { return 0 }
        _ = try? ONNXGraphPatch.addingDurationsOutput(to: patched.model)
    default:
        var reader = WorkerMessage.Reader()
        reader.append(Array(body)[...])
        while let message = try? reader.next() {
            _ = message.encoded()
        }
    }
    return 0
}
