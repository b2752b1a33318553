"""contio's benchmarks against their peers, run by `make bench` (`python -m benchmarks`).

One module per benchmark; each measures contio and its peer (YCSB, fio, sysbench) in
the same run, on the same machine, and returns a `Report` whose rows carry the goal
from the issue that set it. See docs/benchmarks.md for the commands and the tables.
"""
