"""How many engines a cell may start here (issue 29, point B): `containers: [100000]`
was planned (for 109 s) and accepted on 2 CPUs. The bound comes from the host's CPUs,
memory and task limits, and the error says the number and which one holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment import matrix
from contio.experiment.host_limits import (
    ENGINES_PER_CPU,
    HostCapacity,
    capacity_problems,
)
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.run.pricing import estimates

SPEC = """name: many
factors: {workload: [workloadc], containers: [2, COUNT]}
properties: {recordcount: 10, operationcount: 10}
"""
ROOMY = HostCapacity(cpus=64, memory_bytes=1 << 40, free_tasks=1 << 22)


def spec_of(count: int, tmp_path: Path, extra: str = ""):
    return parse_spec_text(SPEC.replace("COUNT", str(count)) + extra, "many.yaml", tmp_path)


def test_the_host_s_own_bound_refuses_100000_containers_with_the_number(tmp_path):
    with pytest.raises(InvalidSpecError) as info:
        spec_of(100_000, tmp_path)
    [problem] = info.value.problems
    host = HostCapacity.here()
    assert problem.path == "factors.containers[1]"
    assert str(problem).startswith(
        "factors.containers[1]: 100000 containers are more than this host can start at once: "
        "at most "
    )
    assert f"{ENGINES_PER_CPU} per CPU, {host.cpus} CPUs" in str(problem) or "MiB" in str(problem)


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        (HostCapacity(1, 1 << 40, 1 << 22), "at most 32 engines here (32 per CPU, 1 CPU)"),
        (HostCapacity(64, 320 << 20, 1 << 22), "at most 10 engines here (320 MiB of memory"),
        (HostCapacity(64, 1 << 40, 100), "at most 10 engines here (half of the 100 tasks"),
    ],
)
def test_each_bound_says_the_number_and_why(tmp_path, host, reason):
    spec = spec_of(40, tmp_path)  # 40 fits here (2 CPUs or more), not on the small hosts
    problems = capacity_problems(spec, expand(spec), host)
    assert [p.path for p in problems] == ["factors.containers[1]"]
    assert reason in str(problems[0]), problems
    assert capacity_problems(spec, expand(spec), ROOMY) == []


def test_a_mix_counts_every_member_s_engines(tmp_path):
    text = (
        "name: mix\nmixes: {pair: [{workload: workloadc}, {workload: workloada}]}\n"
        "factors: {mix: [pair], containers: [20]}\n"
        "properties: {recordcount: 10, operationcount: 10}\n"
    )
    spec = parse_spec_text(text, "mix.yaml", tmp_path)
    [problem] = capacity_problems(spec, expand(spec), HostCapacity(1, 1 << 40, 1 << 22))
    assert "20 containers (40 engines in the cell) are more than" in str(problem)


def test_planning_a_large_cell_reads_each_workload_file_once(tmp_path, monkeypatch):
    # 3000 containers read their workload file 800,000 times: 51 s of `contio plan`.
    spec = spec_of(60, tmp_path)
    reads: list[Path] = []
    real = matrix.read_properties

    def counted(path: Path) -> dict[str, str]:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(matrix, "read_properties", counted)
    matrix._merged_properties.cache_clear()
    cells = expand(spec)
    estimates(cells, spec)
    assert len(reads) <= 2, len(reads)  # once per distinct member (each cell has one kind)
