import LectorInterface
import ArgumentParser

/// `lector`: the narration daemon and its command-line client.
@main
struct Lector: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reads text aloud on the Linux desktop (espeak-ng, PulseAudio/PipeWire, D-Bus).",
        discussion: """
            Examples:
              lector serve                         run the daemon on the session bus
              lector say "Payment received"        speak through the running daemon
              echo "Build done" | lector say --wait -
            """,
        subcommands: [Serve.self, Say.self, Cancel.self, Queue.self, Notifications.self, Read.self, Status.self,
                      Doctor.self, View.self])
}
