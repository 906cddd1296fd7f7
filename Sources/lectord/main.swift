import Foundation
import Glibc
import LectorDaemon
import LectorInterface

// lectord: Lector's daemon on the session bus (io.github.lector.Lector1, MPRIS
// org.mpris.MediaPlayer2.lector). What D-Bus activation, the systemd unit and `lector serve`
// (which execs this program) run. Installed as /usr/libexec/lector/lectord: users start it with
// `lector serve` or not at all. It links the daemon and nothing of the CLI or the read-along page.

let usage = """
    usage: lectord [--version | --help]
    Runs the Lector daemon on the session bus (io.github.lector.Lector1). D-Bus activation, \
    the systemd unit lector.service and `lector serve` start it; see lector(1).

    """

switch Array(CommandLine.arguments.dropFirst()) {
case []:
    break
case ["--version"]:
    print("lectord \(BusNames.version)")
    exit(0)
case ["--help"], ["-h"]:
    print(usage, terminator: "")
    exit(0)
case let other:
    FileHandle.standardError.write(Data(("lectord: unexpected argument \(other[0])\n" + usage).utf8))
    exit(64)
}

// The daemon's loop is the main thread (its state is @MainActor); top-level code runs there.
let status: Int32
do {
    let service = try LectorService()
    status = try service.run()
} catch {
    Journal.log(.error, "cannot serve: \(error)")
    status = 1
}
// Not 0: not asked to stop (the bus went away, the loop failed), so systemd restarts it.
exit(status)
