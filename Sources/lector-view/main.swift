import Foundation
import Glibc
import LectorBus
import LectorInterface
import LectorView

// lector-view: the read-along page's server (Hummingbird on loopback, a D-Bus client of the
// daemon). What D-Bus activation of io.github.lector.View1, the unit lector-view.service and
// `lector view` (which starts or execs this program) run. Installed as
// /usr/libexec/lector/lector-view; it links the page's server and nothing of the daemon or the CLI.
//
//     lector-view [--idle-exit SECONDS]                 serve, printing nothing (activation, the unit)
//     lector-view --print-url [--idle-exit SECONDS]     print the page's address first (lector view --no-browser)
//     lector-view --report-url [--idle-exit SECONDS]    print it, then nothing more: the `lector view`
//                                                       that started this reads one line and leaves

let usage = """
    usage: lector-view [--print-url | --report-url] [--idle-exit SECONDS] | --version | --help
    Serves the read-along page on 127.0.0.1 until SECONDS (300) after its last page closed. \
    `lector view` starts it; see lector(1).

    """

func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("lector-view: \(message)\n" + usage).utf8))
    exit(64)
}

var printing = false
var detached = false
var idleExit = 300.0
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let argument = arguments.popFirst() {
    switch argument {
    case "--version":
        print("lector-view \(BusNames.version)")
        exit(0)
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--print-url":
        printing = true
    case "--report-url":
        printing = true
        detached = true
    case "--idle-exit":
        guard let value = arguments.popFirst() else { usageError("--idle-exit needs a number of seconds") }
        guard let seconds = Double(value), seconds.isFinite, seconds > 0 else {
            usageError("--idle-exit must be a positive number of seconds, not \(value)")
        }
        idleExit = seconds
    default:
        usageError("unexpected argument \(argument)")
    }
}

/// After the address was read, stdout goes nowhere (the pipe's reader is gone).
func silenceOutput() {
    let null = open("/dev/null", O_WRONLY)
    if null >= 0 {
        dup2(null, 1)
        close(null)
    }
}

// The server's loop is the main thread (its bus and link are @MainActor); top-level code runs there.
var status: Int32 = 1
var lost = false
do {
    var options = ViewService.Options()
    options.idleExitSeconds = idleExit
    let service = try ViewService(options: options)
    status = try service.run { url in
        guard printing else { return }
        // Unbuffered: whoever started us reads this line before anything else happens.
        FileHandle.standardOutput.write(Data((url + "\n").utf8))
        // Started by `lector view`: it has read the address; nothing more goes to its pipe.
        if detached { silenceOutput() }
    }
    lost = service.lostToAnotherServer
} catch {
    FileHandle.standardError.write(Data(("lector-view: \(error)\n").utf8))
    exit(1)
}
if lost, printing, let url = Bus.readAlongServerURL() {
    // Another started at the same moment: use it.
    FileHandle.standardOutput.write(Data((url + "\n").utf8))
}
exit(status)
