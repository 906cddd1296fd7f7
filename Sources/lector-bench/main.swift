import Foundation

// lector-bench: see LectorBench.swift and docs/benchmarks.md. The daemon's loop, bus and
// sound-server wrappers are @MainActor, so the benchmarks that use them (policy, pulse-probe)
// run their loop on the main thread (MainThreadWork), and every subcommand's measurements run
// on this other thread.
Thread.detachNewThread {
    LectorBench.main()
    exit(0)
}
MainThreadWork.serve()
