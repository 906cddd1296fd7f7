import Foundation

// lector-policy-bench: see PolicyBench.swift and docs/benchmarks.md. The sound-server and bus
// wrappers are @MainActor, so the bench's loop runs on the main thread (MainThreadWork) and the
// measurements on this one.
Thread.detachNewThread {
    PolicyBench.main()
    exit(0)
}
MainThreadWork.serve()
