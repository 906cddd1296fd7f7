import CGlobalExecutor
import NIOCore
import NIOPosix

/// Swift tasks run on NIO's event-loop threads, never on libdispatch's pool: once that pool has
/// run a task, libdispatch's worker monitor wakes the process every second for good, and an idle
/// server must not wake at all. Call before any task exists.
///
/// NIO's own takeover finds the runtime's hook with dlsym, which works when the Swift runtime is
/// a shared library (debug builds) and fails when it is linked statically (release, the .deb):
/// the hook is then set here through `CGlobalExecutor`, to the same effect.
///
/// ```swift
/// GlobalExecutor.runTasksOnNIO()   // first thing, before a Task is made
/// ```
enum GlobalExecutor {
    typealias Enqueue = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Enqueue) -> Void

    static func runTasksOnNIO() {
        if NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() { return }
        let hook: Hook = { job, _ in
            // EventLoopGroup.any() stays on the current loop when called from one of its threads.
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        }
        let slot = lector_swift_task_enqueue_global_hook()
        slot.pointee = unsafeBitCast(hook, to: UnsafeMutableRawPointer.self)
    }
}
