// lector-policy-bench: see PolicyBench.swift and docs/benchmarks.md.
PolicyBench.main()
