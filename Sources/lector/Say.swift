import ArgumentParser
import LectorCommandLine
import FoundationEssentials
import Glibc
import LectorBus
import LectorCore
import LectorInterface

/// `lector say`: like `spd-say`, through the running daemon (started on demand).
struct Say: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Speak a text through the Lector daemon.",
        discussion: """
            The daemon is started by D-Bus activation if none runs (or, without an installed \
            activation file, by this command itself). \
            The words are joined with spaces, as spd-say and espeak-ng do, so quotes are optional.

            Examples:
              lector say Payment received: 35.20
              lector say -l zh-CN 你好
              dmesg | tail -1 | lector say -w -r 1.5 -

            Ctrl-C while `--wait` waits cancels that speech.
            """)

    @Flag(name: [.short, .long], help: "Return when the speech has been heard; exit non-zero unless it finished as done.")
    var wait = false
    @Option(name: [.short, .long], help: "BCP 47 language, e.g. en-GB or zh-CN.") var language: String?
    @Option(name: [.short, .long], help: "espeak-ng voice name (see the Voices property).") var voice: String?
    @Option(name: [.short, .long], help: "Speech rate, 1.0 is normal (0.5...2.5).") var rate: Double?
    @Option(help: "Pitch, 1.0 is normal (0...2).") var pitch: Double?
    @Option(help: "Volume (0...1).") var volume: Double?
    @Option(name: [.short, .long], help: "important, message, text, notification or progress.") var priority: String?
    @Flag(help: "Raise the output to the configured volume floor while speaking if it is quieter; a muted output stays muted unless --priority important.")
    var ensureAudible = false
    @Option(help: "How numbers are read: number (\"1234\" as a number), digits (\"1 2 3 4\") or currency (\"35.20 EUR\" as money).")
    var digits: String?
    @Flag(help: "Print the speech's id (for `lector cancel ID`).") var printID = false
    @Flag(help: "The text is SSML (espeak-ng's subset); invalid SSML is refused.") var ssml = false
    @Argument(help: "The text (its words are joined with spaces), or - to read it from standard input.")
    var words: [String] = []

    /// The text as given: its words joined, or "-" for standard input.
    private var text: String { words.joined(separator: " ") }

    /// Everything the command line alone can tell is wrong is a usage error (exit 64), before the
    /// daemon is asked: `--rate 3` as much as `--rate fast`.
    func validate() throws {
        if words.isEmpty { throw ValidationError("give the text to speak (lector say Hello world), or - to read it from standard input") }
        try Self.check("--rate", rate, in: SpeechRequest.rateRange)
        try Self.check("--pitch", pitch, in: SpeechRequest.pitchRange)
        try Self.check("--volume", volume, in: SpeechRequest.volumeRange)
        try Self.check("--priority", priority, among: SpeechPriority.allCases.map(\.rawValue))
        try Self.check("--digits", digits, among: NumberMode.allCases.map(\.rawValue))
    }

    static func check(_ flag: String, _ value: Double?, in range: ClosedRange<Double>) throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("\(flag) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
    }

    static func check(_ flag: String, _ value: String?, among choices: [String]) throws {
        guard let value, !choices.contains(value) else { return }
        throw ValidationError("\(flag) must be one of \(choices.joined(separator: ", ")), not \"\(value)\"")
    }

    func run() throws {
        let spoken = try Self.readText(text)
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
        try Self.speak(spoken, options: options, wait: wait, printID: printID)
    }

    /// `lector say WORDS…` with no option (no word starting with "-"): what scripts and
    /// notifications run most, spoken without ArgumentParser's parse (`Lector.main`), the same
    /// way as the parsed command with every option left out.
    static func speakBare(_ words: [String]) throws {
        try speak(try readText(words.joined(separator: " ")), options: [:], wait: false, printID: false)
    }

    private static func speak(_ spoken: String, options: [String: (MessageWriter) throws -> Void], wait: Bool,
                              printID: Bool) throws {
        let signatures = ["language": "s", "voice": "s", "priority": "s", "rate": "d", "pitch": "d", "volume": "d",
                          "ensure-audible": "b", "digits": "s", "ssml": "b"]

        let client = try DaemonClient()
        // Before Speak: a Ctrl-C while it is being sent still cancels the speech it starts.
        let interrupts = wait ? InterruptSignals() : nil
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
        guard let interrupts else { return }
        let reason = try client.waitForFinish(of: id, interrupts: interrupts)
        guard reason == "done" else {
            StandardError.write("lector: speech \(id) ended: \(reason)\n")
            throw ExitCode(1)
        }
    }

    /// The text as bytes, refused if it is not UTF-8 (argv and stdin are bytes, not strings),
    /// with the refusal as the CLI's message.
    private static func readText(_ text: String) throws -> String {
        do {
            if text == "-" {
                return try SpeechRequest.decodeUTF8(try StandardInput.readAll())
            }
            // CommandLine.arguments has already repaired invalid bytes; check the raw argv instead.
            let raw = (1..<Int(CommandLine.argc)).compactMap { CommandLine.unsafeArgv[$0] }
            for pointer in raw {
                _ = try SpeechRequest.decodeUTF8(Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer)))
                                                   .map { UInt8(bitPattern: $0) })
            }
            return text
        } catch let error as LectorError {
            throw CLIError(error.message)
        }
    }
}
