/* The Swift runtime's hook for where tasks without an executor run (swift_task_enqueueGlobal_hook),
 * reached at link time: a program with the Swift runtime linked statically has it, but not in its
 * dynamic symbol table (the toolchain links archives with --exclude-libs ALL), so dlsym cannot
 * find it. LectorView's GlobalExecutor sets it. */
#pragma once

void *_Nullable *_Nonnull lector_swift_task_enqueue_global_hook(void);
