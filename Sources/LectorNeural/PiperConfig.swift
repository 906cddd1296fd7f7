import Foundation

/// A Piper voice's `NAME.onnx.json`: what synthesis needs from it, checked with named errors.
public struct PiperConfig: Equatable, Sendable {
    public var sampleRate: Int
    /// audio.quality ("low", "medium", "high"), when given.
    public var quality: String?
    /// The espeak-ng voice that gives its phonemes ("en-us").
    public var espeakVoice: String
    public var noiseScale: Float
    /// Speed: larger is slower.
    public var lengthScale: Float
    public var noiseW: Float
    public var numSpeakers: Int
    /// Samples per model frame (VITS hop length).
    public var hopLength: Int
    public var phonemeIDMap: [String: [Int64]]
    /// Phoneme sequences the voice takes as one phoneme ("a", "ɪ" → "aɪ"; piper1-gpl's
    /// vowel_clusters, newer voices only). Each merged phoneme is in the map.
    public var vowelClusters: [[String]]

    /// Piper's defaults for a config without `inference` (piper1-gpl config.py).
    public static let defaultNoiseScale: Float = 0.667
    public static let defaultLengthScale: Float = 1
    public static let defaultNoiseW: Float = 0.8
    public static let defaultHopLength = 256

    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw NeuralError.configUnreadable(path: path, reason: Self.reason(error))
        }
        try self.init(json: data, path: path)
    }

    public init(json data: Data, path: String) throws {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw NeuralError.configUnreadable(path: path, reason: "not a JSON object")
            }
            root = object
        } catch let error as NeuralError {
            throw error
        } catch {
            throw NeuralError.configUnreadable(path: path, reason: "not JSON (\(Self.reason(error)))")
        }
        let fields = Fields(root: root, path: path)

        sampleRate = try fields.int("audio.sample_rate")
        guard (8000...192_000).contains(sampleRate) else {
            throw NeuralError.configInvalidField(path: path, field: "audio.sample_rate", reason: "is \(sampleRate)")
        }
        quality = try fields.optional("audio.quality") { $0 as? String }
        let phonemeType = try fields.optional("phoneme_type") { $0 as? String } ?? "espeak"
        guard phonemeType == "espeak" else {
            throw NeuralError.configInvalidField(path: path, field: "phoneme_type",
                                                 reason: "is \"\(phonemeType)\"; only espeak phonemes are supported")
        }
        let voice = try fields.required("espeak.voice") { $0 as? String }
        guard !voice.isEmpty else {
            throw NeuralError.configInvalidField(path: path, field: "espeak.voice", reason: "is empty")
        }
        espeakVoice = voice
        noiseScale = try fields.optional("inference.noise_scale") { ($0 as? NSNumber)?.floatValue } ?? Self.defaultNoiseScale
        lengthScale = try fields.optional("inference.length_scale") { ($0 as? NSNumber)?.floatValue } ?? Self.defaultLengthScale
        noiseW = try fields.optional("inference.noise_w") { ($0 as? NSNumber)?.floatValue } ?? Self.defaultNoiseW
        guard lengthScale > 0 else {
            throw NeuralError.configInvalidField(path: path, field: "inference.length_scale", reason: "is not positive")
        }
        numSpeakers = try fields.int("num_speakers")
        guard numSpeakers >= 1 else {
            throw NeuralError.configInvalidField(path: path, field: "num_speakers", reason: "is \(numSpeakers)")
        }
        hopLength = try fields.optional("hop_length") { ($0 as? NSNumber)?.intValue } ?? Self.defaultHopLength
        guard hopLength > 0 else {
            throw NeuralError.configInvalidField(path: path, field: "hop_length", reason: "is \(hopLength)")
        }

        let map = try fields.required("phoneme_id_map") { $0 as? [String: Any] }
        var ids: [String: [Int64]] = [:]
        for (phoneme, value) in map {
            let numbers = (value as? [Any])?.compactMap { ($0 as? NSNumber)?.int64Value }.filter { $0 >= 0 }
            guard let numbers, !numbers.isEmpty, numbers.count == (value as? [Any])?.count else {
                throw NeuralError.configInvalidField(path: path, field: "phoneme_id_map[\"\(phoneme)\"]",
                                                     reason: "is not a list of ids")
            }
            ids[phoneme] = numbers
        }
        for symbol in [PhonemeIDs.bos, PhonemeIDs.pad, PhonemeIDs.eos] where ids[symbol] == nil {
            throw NeuralError.configMissingField(path: path, field: "phoneme_id_map[\"\(symbol)\"]")
        }
        phonemeIDMap = ids
        let clusters = try fields.optional("vowel_clusters") { $0 as? [[String]] } ?? []
        for cluster in clusters where cluster.count < 2 || ids[cluster.joined()] == nil {
            throw NeuralError.configInvalidField(path: path, field: "vowel_clusters",
                                                 reason: "has \(cluster), whose merged phoneme is not in phoneme_id_map")
        }
        vowelClusters = clusters
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedDescription
    }

    /// Dotted-path look-ups that name the missing or mistyped field.
    private struct Fields {
        var root: [String: Any]
        var path: String

        func value(_ dotted: String) -> Any? {
            var node: Any? = root
            for key in dotted.split(separator: ".") {
                node = (node as? [String: Any])?[String(key)]
            }
            return node
        }

        func optional<T>(_ dotted: String, _ cast: (Any) -> T?) throws -> T? {
            guard let raw = value(dotted), !(raw is NSNull) else { return nil }
            guard let typed = cast(raw) else {
                throw NeuralError.configInvalidField(path: path, field: dotted, reason: "has the wrong type")
            }
            return typed
        }

        func required<T>(_ dotted: String, _ cast: (Any) -> T?) throws -> T {
            guard let typed = try optional(dotted, cast) else {
                throw NeuralError.configMissingField(path: path, field: dotted)
            }
            return typed
        }

        func int(_ dotted: String) throws -> Int {
            // JSON numbers come as NSNumber; a fractional one is not an int field.
            let number = try required(dotted) { $0 as? NSNumber }
            guard Double(number.intValue) == number.doubleValue else {
                throw NeuralError.configInvalidField(path: path, field: dotted, reason: "is not an integer")
            }
            return number.intValue
        }
    }
}
