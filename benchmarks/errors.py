"""The exceptions a benchmark raises; `__main__` maps them to exit codes."""


class BenchError(Exception):
    """Base class of every error the benchmarks raise on purpose."""


class SetupError(BenchError):
    """The set-up is broken (a peer or the engine is missing, a child failed). Exit code 2."""


class BenchmarkSkipped(BenchError):
    """The benchmark cannot run yet on this tree (a feature has not landed). Not a failure."""
