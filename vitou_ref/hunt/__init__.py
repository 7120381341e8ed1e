"""Hunting for what the suite misses: differential fuzzing, mutants and benchmarks."""
