"""Hunting for what the suite misses: differential fuzzing, mutants, simulation and benchmarks."""
