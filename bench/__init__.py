"""Benchmarks: `python -m bench` (throughput, issue 5); other modules run as `python -m bench.<name>`."""
