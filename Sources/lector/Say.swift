import ArgumentParser
import Foundation
import LectorBus
import LectorCore
import LectorInterface

/// `lector say`: like `spd-say`, through the running daemon (started on demand).
struct Say: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Speak a text through the Lector daemon.",
        discussion: """
            The daemon is started by D-Bus activation if none runs (or, without an installed
            activation file, by this command itself).
            Examples:
              lector say "Payment received: 35.20"
              lector say --language zh-CN "你好"
              dmesg | tail -1 | lector say --wait --rate 1.5 -
            """)

    @Flag(help: "Return when the speech has been heard; exit non-zero unless it finished as done.")
    var wait = false
    @Option(help: "BCP 47 language, e.g. en-GB or zh-CN.") var language: String?
    @Option(help: "espeak-ng voice name (see the Voices property).") var voice: String?
    @Option(help: "Speech rate, 1.0 is normal (0.5...2.5).") var rate: Double?
    @Option(help: "Pitch, 1.0 is normal (0...2).") var pitch: Double?
    @Option(help: "Volume (0...1).") var volume: Double?
    @Option(help: "important, message, text, notification or progress.") var priority: String?
    @Flag(help: "Raise the output to the configured volume floor while speaking if it is quieter; a muted output stays muted unless --priority important.")
    var ensureAudible = false
    @Option(help: "How numbers are read: number (\"1234\" as a number), digits (\"1 2 3 4\") or currency (\"35.20 EUR\" as money).")
    var digits: String?
    @Flag(help: "Print the speech's id (for `lector cancel ID`).") var printID = false
    @Flag(help: "The text is SSML (espeak-ng's subset); invalid SSML is refused.") var ssml = false
    @Argument(help: "The text, or - to read it from standard input.") var text: String

    func run() throws {
        let spoken: String
        do {
            spoken = try readText()
        } catch let error as LectorError {
            throw CLIError(error.message)
        }
        var options: [String: (MessageWriter) throws -> Void] = [:]
        if let language { options["language"] = { try $0.append(language) } }
        if let voice { options["voice"] = { try $0.append(voice) } }
        if let rate { options["rate"] = { try $0.append(rate) } }
        if let pitch { options["pitch"] = { try $0.append(pitch) } }
        if let volume { options["volume"] = { try $0.append(volume) } }
        if let priority { options["priority"] = { try $0.append(priority) } }
        if ensureAudible { options["ensure-audible"] = { try $0.append(true) } }
        if let digits { options["digits"] = { try $0.append(digits) } }
        if ssml { options["ssml"] = { try $0.append(true) } }
        let signatures = ["language": "s", "voice": "s", "priority": "s", "rate": "d", "pitch": "d", "volume": "d",
                          "ensure-audible": "b", "digits": "s", "ssml": "b"]

        let client = try DaemonClient()
        if wait { try client.watchFinishes() }
        let id = try client.speak(spoken) { writer in
            try writer.container("a", "{sv}") {
                for (key, append) in options.sorted(by: { $0.key < $1.key }) {
                    try writer.container("e", "sv") {
                        try writer.append(key)
                        try writer.container("v", signatures[key]!) { try append(writer) }
                    }
                }
            }
        }
        if printID { print(id) }
        guard wait else { return }
        let reason = try client.waitForFinish(of: id)
        guard reason == "done" else {
            FileHandle.standardError.write(Data("lector: speech \(id) ended: \(reason)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The text as bytes, refused if it is not UTF-8 (argv and stdin are bytes, not strings).
    private func readText() throws -> String {
        if text == "-" {
            return try SpeechRequest.decodeUTF8(Array(FileHandle.standardInput.readDataToEndOfFile()))
        }
        // ArgumentParser has already repaired invalid bytes; check the raw argv instead.
        let raw = (1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0] }
        for pointer in raw {
            _ = try SpeechRequest.decodeUTF8(Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer)))
                                               .map { UInt8(bitPattern: $0) })
        }
        return text
    }
}
