"""When a repetition needs a fresh load: the three load policies."""

from __future__ import annotations

from pathlib import Path

from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.run.loads import LoadedData, needs_load

SPEC = """
name: p
factors:
  target: [null]
  workload: [workloadc, workloada]
  threads: [1]
"""


def test_load_policies():
    read, write = expand(parse_spec_text(SPEC, "p.yaml", Path.cwd()))
    assert read.read_only and not write.read_only
    fresh = LoadedData(read.load_key(), ["local-dir"], [Path("/d")], fresh=True)
    used = LoadedData(read.load_key(), ["local-dir"], [Path("/d")], fresh=False)
    other = LoadedData(("x",), ["local-dir"], [Path("/d")], fresh=True)
    for policy in ("auto", "always", "never"):
        assert needs_load(policy, None, read)
        assert needs_load(policy, other, read)  # another data set
    assert not needs_load("auto", fresh, read) and not needs_load("auto", fresh, write)
    assert needs_load("auto", used, read) and needs_load("auto", used, write)
    assert not needs_load("always", used, write)
    assert needs_load("never", fresh, read)
