"""Command-line experiments of carioca-env: demo, benchmarks, tournaments, play, training."""
