// swift-tools-version:6.0
import PackageDescription

// Layout (one job per target):
//   C edges       CSystemd, CPulse, CEspeakNG (system libraries), CLectorShim (what Swift cannot do in C)
//   pure logic    LectorCore, LectorBooks, LectorPolicy, LectorConfig (import no C library; unit-tested alone)
//   thin wrappers LectorLoop (sd-event), LectorBus (sd-bus), LectorAudio (libpulse), LectorSpeech (espeak-ng thread)
//   the service   LectorDaemon (one context, one event loop), lector (CLI)
//   testing       LectorTestKit (private bus + sound server + monitor recorder), lector-bench
let cEdge: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "lector",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "lector", targets: ["lector"]),
        .executable(name: "lector-bench", targets: ["lector-bench"]),
        .executable(name: "lector-player-bench", targets: ["lector-player-bench"]),
        .executable(name: "lector-pulse-probe", targets: ["lector-pulse-probe"]),
        .executable(name: "lector-policy-bench", targets: ["lector-policy-bench"]),
        .library(name: "LectorTestKit", targets: ["LectorTestKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
    ],
    targets: [
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CPulse", pkgConfig: "libpulse",
                       providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng",
                       providers: [.apt(["libespeak-ng-dev"])]),
        .target(name: "CLectorShim", dependencies: ["CSystemd", "CPulse"]),
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),

        .target(name: "LectorCore"),
        // Books: EPUB 2/3 and plain text to chapters of speakable text. Swift (its zip reader is
        // a Swift package) but for libxml2's HTML parser behind one file, HTMLDocumentParser;
        // tested fast and alone like LectorCore.
        .target(name: "LectorBooks", dependencies: ["LectorCore", "ZIPFoundation", "CLibXML2"]),

        // Audio policy: route changes, calls, ducking bookkeeping, over snapshots of the sound server.
        .target(name: "LectorPolicy"),
        // config.toml: its parser, defaults and errors with file, line and reason.
        .target(name: "LectorConfig"),

        // Bookmarks on disk: Foundation only, written atomically off the event loop.
        .target(name: "LectorState", dependencies: ["LectorCore", "LectorPolicy"]),
        .target(name: "LectorLoop", dependencies: ["CSystemd", "CLectorShim"], swiftSettings: cEdge),
        .target(name: "LectorBus", dependencies: ["CSystemd", "CLectorShim", "LectorLoop", "LectorCore"],
                swiftSettings: cEdge),
        .target(name: "LectorAudio", dependencies: ["CPulse", "CLectorShim", "LectorLoop", "LectorCore", "LectorPolicy"],
                swiftSettings: cEdge),
        .target(name: "LectorSpeech", dependencies: ["CEspeakNG", "CLectorShim", "LectorCore"],
                swiftSettings: cEdge),
        .target(name: "LectorDaemon",
                dependencies: ["LectorLoop", "LectorBus", "LectorAudio", "LectorSpeech", "LectorCore",
                               "LectorBooks", "LectorState", "LectorPolicy", "LectorConfig", "CSystemd"],
                swiftSettings: cEdge),
        .executableTarget(name: "lector",
                          dependencies: ["LectorDaemon", "LectorBus", "LectorCore", "LectorConfig", "LectorAudio",
                                         "LectorSpeech", "LectorLoop", "CSystemd", "CEspeakNG", "CLectorShim",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: cEdge),

        .target(name: "LectorTestKit", dependencies: ["LectorCore"]),
        .executableTarget(name: "lector-bench",
                          dependencies: ["LectorTestKit",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // Issue 3's figures: a large book's open-to-audio time and RSS, and Properties.GetAll
        // round trips against mpv + mpv-mpris in the same run.
        .executableTarget(name: "lector-player-bench",
                          dependencies: ["LectorTestKit", "LectorBus",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: cEdge),

        // Issue 4's figures: route loss to Paused, call to silence, announcement to ducked, end to
        // restored, timed in-process on the daemon's own loop/bus/libpulse wrappers.
        .executableTarget(name: "lector-policy-bench",
                          dependencies: ["LectorTestKit", "LectorBus", "LectorLoop", "LectorAudio", "LectorPolicy",
                                         "CPulse", "CSystemd",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          swiftSettings: cEdge),

        // Test tool: reads what libpulse offers but pactl does not print (saved stream-restore volumes).
        .executableTarget(name: "lector-pulse-probe", dependencies: ["CPulse"], swiftSettings: cEdge),

        .testTarget(name: "LectorCoreTests", dependencies: ["LectorCore"]),
        .testTarget(name: "LectorBooksTests",
                    dependencies: ["LectorBooks", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "LectorStateTests", dependencies: ["LectorState"]),
        .testTarget(name: "LectorPolicyTests", dependencies: ["LectorPolicy"]),
        .testTarget(name: "LectorConfigTests", dependencies: ["LectorConfig"]),
        .testTarget(name: "LectorIntegrationTests", dependencies: ["LectorTestKit", "LectorCore", "lector"]),
        .testTarget(name: "LectorPlayerTests", dependencies: ["LectorTestKit", "LectorCore", "lector"]),
        .testTarget(name: "LectorAudioPolicyTests",
                    dependencies: ["LectorTestKit", "LectorCore", "lector", "lector-pulse-probe"]),
    ]
)
