// lector-player-bench: see PlayerBench.swift and docs/benchmarks.md.
PlayerBench.main()
