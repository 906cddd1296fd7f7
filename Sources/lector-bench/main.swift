// lector-bench: see LectorBench.swift and docs/benchmarks.md.
LectorBench.main()
