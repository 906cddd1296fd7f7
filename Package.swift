// swift-tools-version:6.1
import PackageDescription

// Layout (one job per target):
//   C edges       CSystemd, CLinux (system headers); one small C target per job Swift
//                 cannot do: CBusVtable (sd_bus_vtable), CPulseLoop (libpulse on sd-event), CMainQueue,
//                 CGlobalExecutor (the Swift runtime's task hook, for the read-along server),
//                 CLibraryLoader, CPulse, CEspeakNG, CLibXML2, CONNXRuntime (libpulse, espeak-ng,
//                 libxml2, ONNX Runtime through dlopen); CStandInSndfile, CStandInPcaudio (what those
//                 link and lectord never calls, stood in for)
//   pure logic    LectorCore, LectorBooks, LectorPolicy, LectorConfig (import no C library in their own code;
//                 LectorConfig parses with TOMLKit, a Swift wrapper of toml++; unit-tested alone)
//   XML           LectorXML: the one guarded way to run libxml2 (entity budget, cancellation, CPU budget)
//   SSML          LectorSSML: libxml2 behind one file (SSMLReader), espeak-ng's rules in Swift; LectorCore's
//                 SpeechRequest calls it as LectorConfig calls TOMLKit
//   thin wrappers LectorLoop (sd-event), LectorBus (sd-bus), LectorAudio (libpulse), LectorSpeech (espeak-ng thread)
//   neural voice  LectorNeural (Piper voices on ONNX Runtime), LectorNeuralSpeech (narration's neural synthesizer)
//   the service   LectorDaemon (one context, one event loop)
//   programs      lector (the CLI: a D-Bus client, no daemon, NIO, Hummingbird or Foundation linked),
//                 lectord (the daemon), lector-view (the read-along page's server), lector-tools (the
//                 CLI's local commands: library, voices, phonemes, doctor), lector-piper (a neural
//                 voice's worker); `lector serve`, `lector view` and the local commands exec lectord,
//                 lector-view and lector-tools, found beside the CLI or in PREFIX/libexec/lector
//                 (LectorSpawn's OwnExecutable); LectorCommandLine is what lector and lector-tools share
//   testing       LectorTestKit (private bus + sound server + monitor recorder, EPUB writer), lector-bench
//                 (every benchmark and the test kit's pulse-probe, one executable with subcommands)

let packageDirectory = String(#filePath.dropLast("/Package.swift".count))

// A stand-in is plain C: not the Swift runtime's start-up object, nor its search path, nor any library
// of its (static: nothing calls them, so nothing is linked; libstdc++ the same way, see below).
let standInLinking = ["-use-ld=lld", "-nostartfiles", "-no-toolchain-stdlib-rpath", "-static-stdlib",
                      "-L\(packageDirectory)/packaging/static-libstdc++"]

let package = Package(
    name: "lector",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "lector", targets: ["lector"]),
        .executable(name: "lectord", targets: ["lectord"]),
        .executable(name: "lector-view", targets: ["lector-view"]),
        .executable(name: "lector-bench", targets: ["lector-bench"]),
        .executable(name: "lector-piper", targets: ["lector-piper"]),
        .executable(name: "lector-tools", targets: ["lector-tools"]),
        .library(name: "LectorTestKit", targets: ["LectorTestKit"]),
        // Stand-ins for libsndfile and pcaudio, which libpulse and espeak-ng link and lectord never calls.
        .library(name: "lector-sndfile-stand-in", type: .dynamic, targets: ["CStandInSndfile"]),
        .library(name: "lector-pcaudio-stand-in", type: .dynamic, targets: ["CStandInPcaudio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The read-along page's HTTP server (LectorView). No default traits: no swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CLinux"),
        .target(name: "CBusVtable", dependencies: ["CSystemd"]),
        .target(name: "CPulseLoop", dependencies: ["CSystemd", "CPulse"]),
        .target(name: "CMainQueue"),
        // The Swift runtime's global-executor hook, reached at link time (dlsym cannot find it in a
        // program linked with the static Swift runtime): the read-along server runs tasks on NIO.
        .target(name: "CGlobalExecutor"),
        // libpulse, espeak-ng and libxml2, opened with dlopen when first used (never linked):
        // lector-tools and the daemon start without them and what they pull in; headers from libpulse-dev,
        // libespeak-ng-dev, libxml2-dev.
        .target(name: "CLibraryLoader"),
        .target(name: "CPulse", dependencies: ["CLibraryLoader"]),
        .target(name: "CEspeakNG", dependencies: ["CLibraryLoader"]),
        // libxml2 the same way: the CLI and an idle daemon never load it (nor the ICU it pulls in).
        .target(name: "CLibXML2", dependencies: ["CLibraryLoader"]),
        // What libpulse and espeak-ng link but lectord never calls, each a library of its own under
        // the real one's soname (and libsndfile's symbol version), which CLibraryLoader loads first:
        // libsndfile with its eight codecs and pcaudio with ALSA were 1.2 MB of an idle daemon.
        .target(name: "CStandInSndfile", exclude: ["sndfile.map"],
                linkerSettings: [.unsafeFlags(standInLinking + ["-Xlinker", "-soname=libsndfile.so.1", "-Xlinker",
                                               "--version-script=\(packageDirectory)/Sources/CStandInSndfile/sndfile.map"])]),
        .target(name: "CStandInPcaudio", linkerSettings: [.unsafeFlags(standInLinking + ["-Xlinker", "-soname=libpcaudio.so.0"])]),
        // ONNX Runtime's C API, opened with dlopen on first use (never linked): the prefix of its
        // function table that Lector calls, declared here (Debian 12 has no onnxruntime headers).
        .target(name: "CONNXRuntime"),

        // libxml2 run one way for every document Lector reads: no network, internal entities only and
        // within a budget, each parse cancellable and on a CPU budget (XMLReader, XMLParseScope).
        .target(name: "LectorXML", dependencies: ["CLibXML2"]),
        // The bus vocabulary shared by the daemon, the CLI and the tests: names, paths, errors, option keys.
        .target(name: "LectorInterface"),
        // posix_spawn as every child of Lector starts: the CLI's daemon and view server, the test kit's processes;
        // and OwnExecutable, the one place that finds this program and Lector's other programs installed with it.
        .target(name: "LectorSpawn"),
        // The SSML check of Speak's `ssml` option: libxml2 reads (well-formedness, offsets), espeak-ng's
        // own rules are Swift. Its own target so that LectorCore imports no C library (SSMLCheck's doc
        // comment says why libxml2 rather than FoundationXML).
        .target(name: "LectorSSML", dependencies: ["CLibXML2", "LectorXML", "LectorInterface"]),
        .target(name: "LectorCore", dependencies: ["LectorInterface", "LectorSSML"]),
        // Books: EPUB 2/3 and plain text to chapters of speakable text. Swift (its zip reader is
        // a Swift package) but for libxml2's parsers behind two files, XMLSAXParser and
        // HTMLDocumentParser; tested fast and alone like LectorCore.
        .target(name: "LectorBooks", dependencies: ["LectorCore", "ZIPFoundation", "CLibXML2", "LectorXML"]),

        // Audio policy: route changes, calls, ducking bookkeeping, over snapshots of the sound server.
        .target(name: "LectorPolicy"),
        // config.toml: TOMLKit (toml++) parses, LectorConfig checks keys, types and ranges and
        // reports errors with file, line and reason. Its own code imports no C library; LectorCore
        // checks the [pronunciation] lexicons (IPA symbols espeak-ng can say, patterns).
        .target(name: "LectorConfig", dependencies: ["LectorCore", .product(name: "TOMLKit", package: "TOMLKit")]),

        // Bookmarks on disk: Foundation only, written atomically off the event loop.
        .target(name: "LectorState", dependencies: ["LectorCore", "LectorPolicy"]),
        .target(name: "LectorLoop", dependencies: ["CSystemd", "CMainQueue", "CLinux"]),
        .target(name: "LectorBus", dependencies: ["CSystemd", "CBusVtable", "LectorLoop", "LectorCore"]),
        .target(name: "LectorAudio", dependencies: ["CPulse", "CPulseLoop", "LectorLoop", "LectorCore", "LectorPolicy"]),
        .target(name: "LectorSpeech", dependencies: ["CEspeakNG", "CLinux", "LectorCore"]),
        // Neural (Piper) voices: config, phoneme ids, the in-memory model patch that exposes
        // durations and duration math are plain Swift; ONNX Runtime is called from one file
        // (ONNXSession.swift); the worker's socket protocol (WorkerMessage, WorkerChannel).
        .target(name: "LectorNeural", dependencies: ["CONNXRuntime", "CLinux"]),
        // A neural voice speaking narration: espeak-ng's phoneme reading in, a Piper voice's
        // audio and word boundaries out on the synthesis mailbox, on a thread of its own; the
        // model runs in the voice worker process (lector-piper), which it starts and ends.
        .target(name: "LectorNeuralSpeech", dependencies: ["LectorNeural", "LectorSpeech", "LectorCore", "LectorSpawn"]),
        // The voice worker: one Piper voice in ONNX Runtime, in a process of its own (README,
        // "A natural voice"); links LectorNeural alone.
        .executableTarget(name: "lector-piper", dependencies: ["LectorNeural", "CLinux"]),
        .target(name: "LectorDaemon",
                dependencies: ["LectorLoop", "LectorBus", "LectorAudio", "LectorSpeech", "LectorCore",
                               "LectorBooks", "LectorXML", "LectorState", "LectorPolicy", "LectorConfig", "LectorSpawn",
                               "LectorNeuralSpeech", "CSystemd", "CLinux"]),
        // The read-along page: an HTTP + Server-Sent Events server on loopback (Hummingbird) that is
        // a D-Bus client of the daemon like any other; its page (Page/: plain HTML, CSS, JS) is
        // served from the source tree or /usr/share/lector/view.
        .target(name: "LectorView",
                dependencies: ["LectorBus", "LectorLoop", "LectorInterface", "LectorCore", "LectorSpawn", "CGlobalExecutor",
                               .product(name: "Hummingbird", package: "hummingbird"),
                               .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                               .product(name: "Logging", package: "swift-log")],
                exclude: ["Page"]),
        // What the CLI and lector-tools share: the daemon client, its launcher, Ctrl-C while waiting,
        // tables and messages. FoundationEssentials only, as the CLI.
        .target(name: "LectorCommandLine",
                dependencies: ["LectorBus", "LectorInterface", "LectorLoop", "LectorSpawn",
                               .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The CLI: a D-Bus client of the daemon. Never LectorDaemon or LectorView (`lector serve` and
        // `lector view` exec lectord and lector-view), nor Foundation and its ICU data: what it links
        // imports FoundationEssentials at most, and the commands that need books, espeak-ng, config
        // or state files exec lector-tools (SplitTests checks the binary's symbols).
        .executableTarget(name: "lector",
                          dependencies: ["LectorCommandLine", "LectorInterface", "LectorBus", "LectorCore", "LectorLoop",
                                         "LectorSpawn", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // `lector library`, `voices`, `phonemes` and `doctor`, run locally (libexec; lector execs it):
        // books, espeak-ng, libpulse probes, config.toml, the state files, Piper voices.
        .executableTarget(name: "lector-tools",
                          dependencies: ["LectorCommandLine", "LectorInterface", "LectorBus", "LectorCore", "LectorConfig",
                                         "LectorAudio", "LectorSpeech", "LectorLoop", "LectorBooks", "LectorState", "LectorSpawn",
                                         "LectorNeuralSpeech", "LectorNeural",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The daemon (`lector serve` execs it; D-Bus activation and lector.service run it).
        .executableTarget(name: "lectord", dependencies: ["LectorDaemon", "LectorInterface"]),
        // The read-along page's server (`lector view` starts or execs it; its own activation file and unit).
        .executableTarget(name: "lector-view", dependencies: ["LectorView", "LectorBus", "LectorInterface"]),

        .target(name: "LectorTestKit",
                dependencies: ["LectorCore", "LectorLoop", "LectorAudio", "LectorPolicy", "LectorSpawn",
                               .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                exclude: ["browser-driver.py"]),
        // Every benchmark (latency, idle, narration-yield, player, get-all, policy, startup; docs/benchmarks.md)
        // and the test kit's pulse-probe, as subcommands of one executable with one report type.
        // The policy bench and the probe run the daemon's own loop/bus/libpulse wrappers
        // (@MainActor) on the main thread.
        .executableTarget(name: "lector-bench",
                          dependencies: ["LectorTestKit", "LectorInterface", "LectorBus", "LectorLoop", "LectorAudio",
                                         "LectorPolicy", "CPulse", "CSystemd", "LectorNeural", "LectorNeuralSpeech", "LectorSpeech", "LectorCore",
                                         "LectorSpawn",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        .testTarget(name: "LectorCoreTests", dependencies: ["LectorCore"]),
        // Pure unit tests, and the real voice and runtime from PyPI (scripts/install-deps --test);
        // piper-anchor.py is the piper-tts side of the figures.
        .testTarget(name: "LectorNeuralTests", dependencies: ["LectorNeural"], exclude: ["piper-anchor.py", "moby-dick.txt"]),
        .testTarget(name: "LectorNeuralSpeechTests", dependencies: ["LectorNeuralSpeech", "LectorNeural", "LectorSpeech", "LectorCore", "lector-piper"]),
        .testTarget(name: "LectorSSMLTests", dependencies: ["LectorSSML", "LectorInterface", "LectorTestKit"]),
        // Components in-process with fakes: a manual loop (advanceTime) and a sound server in memory;
        // and two edges (Bus.beforeAnswering, SoundServer.sendWaitingRequests) against a private
        // session's real dbus-daemon and sound server.
        .testTarget(name: "LectorDaemonTests", dependencies: ["LectorDaemon", "LectorTestKit", "LectorPolicy", "LectorAudio",
                                                              "LectorLoop", "LectorState", "LectorBus", "CSystemd"]),
        .testTarget(name: "LectorBooksTests",
                    dependencies: ["LectorBooks", "LectorXML", "LectorTestKit", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "LectorStateTests", dependencies: ["LectorState"]),
        .testTarget(name: "LectorCommandLineTests", dependencies: ["LectorCommandLine"]),
        .testTarget(name: "LectorPolicyTests", dependencies: ["LectorPolicy"]),
        .testTarget(name: "LectorConfigTests", dependencies: ["LectorConfig"]),
        .testTarget(name: "LectorViewTests", dependencies: ["LectorView"]),
        // Every test that runs `lector serve` or `lector view` needs lectord and lector-view built too.
        .testTarget(name: "LectorIntegrationTests", dependencies: ["LectorTestKit", "LectorCore", "LectorSpawn", "lector", "lector-tools", "lectord",
                                                                   "lector-view", "lector-bench"]),
        // The test kit's own checks: private sessions, recorders, watchers, both sound servers.
        .testTarget(name: "LectorTestKitTests", dependencies: ["LectorTestKit", "lector-bench"]),
        .testTarget(name: "LectorPlayerTests", dependencies: ["LectorTestKit", "LectorCore", "LectorNeural", "lector", "lector-tools", "lectord",
                                                              "lector-view", "lector-piper"]),
        .testTarget(name: "LectorAudioPolicyTests",
                    dependencies: ["LectorTestKit", "LectorCore", "lector", "lector-tools", "lectord", "lector-bench"]),
    ]
)

// Code layout of the release programs (docs/benchmarks.md, "Code layout"). The kernel maps code
// 64 kB at a time around each page touched, so what decides an idle program's memory is how many
// such windows its hot functions fall in. Release builds therefore put each function of this
// package's targets in a section of its own (most of the toolchain's libraries have that already;
// dependencies built from source do not) and link with lld, which places the functions listed in
// packaging/link-order/PROGRAM.order (those the program ran on its everyday paths, what every day
// starts with first; scripts/link-order regenerates them) first and together, and packs the
// relative relocations (DT_RELR, glibc 2.36), which stayed resident as a table, and exports no symbols
// (the driver's -export-dynamic filled a dynamic symbol table nothing looks up). A name no longer
// in the program is skipped; scripts/test-package checks the lists still match.
let release = BuildSettingCondition.when(platforms: [.linux], configuration: .release)
let shippedPrograms = ["lector", "lectord", "lector-view", "lector-piper", "lector-tools"]
// The programs run every day, laid out by their order lists; lector-tools and lector-piper are run
// seldom (a command typed now and then, a neural voice's worker).
let orderedPrograms = ["lector", "lectord", "lector-view"]
// libxml2's headers include one another as <libxml/…> from /usr/include/libxml2 (pkg-config
// libxml-2.0 --cflags on Debian 12 and 13). CLibXML2 is a C target, so that no program links
// libxml2, and every module that sees it through LectorXML loads its headers: all targets get it.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]
    target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-I/usr/include/libxml2"])]
}
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-function-sections"], release)]
    target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-ffunction-sections"], release)]
    guard shippedPrograms.contains(target.name) else { continue }
    var flags = ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"]
    if orderedPrograms.contains(target.name) {
        flags += ["-Xlinker", "--symbol-ordering-file=\(packageDirectory)/packaging/link-order/\(target.name).order",
                  "-Xlinker", "--no-warn-symbol-ordering"]
    }
    if target.name != "lector-piper" {
        flags += [
                  // libstdc++ linked statically (what the Swift runtime, Foundation's ICU and TOMLKit
                  // use of it, gc'd): loading libstdc++.so.6 was 0.4-0.8 ms of every CLI start and
                  // 1.4 MB of an idle daemon. The directory's libstdc++.so is a linker script naming
                  // libstdc++.a. Not for lector-piper, whose ONNX Runtime needs the shared one.
                  "-L\(packageDirectory)/packaging/static-libstdc++"]
    }
    target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(flags, release)]
}
