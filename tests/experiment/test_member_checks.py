"""What each container of a cell runs, refused by the spec's checks when it could not
finish (issue 29, point B): `recordcount` 0 or missing (2^31 - 1 records to load), no
operation count and no time limit, a fio job whose load cannot be laid out. Each names
the field that set the value; each used to pass `contio plan`."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text

BASE = "name: m\nfactors: {workload: [WORKLOAD]}\n"


def problems(text: str, base_dir: Path) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "m.yaml", base_dir)
    return [str(p) for p in info.value.problems]


def test_a_record_count_of_0_is_refused_naming_the_property(tmp_path):
    text = BASE.replace("WORKLOAD", "workloadc") + "properties: {recordcount: 0}\n"
    [problem] = problems(text, tmp_path)
    assert problem.startswith("properties.recordcount: recordcount is 0: YCSB reads that as")
    assert "give recordcount of at least 1" in problem


def test_a_record_count_level_of_0_names_the_level(tmp_path):
    text = BASE.replace("WORKLOAD", "workloadc") + "  properties: {recordcount: [10, 0]}\n"
    text = text.replace("factors: {workload: [workloadc]}\n", "factors:\n  workload: [workloadc]\n")
    [problem] = problems(text, tmp_path)
    assert problem.startswith("factors.properties.recordcount[1]: recordcount is 0")


def test_a_workload_file_without_counts_names_the_file(tmp_path):
    (tmp_path / "mine.properties").write_text("readproportion=1\n")
    found = problems(BASE.replace("WORKLOAD", "./mine.properties"), tmp_path)
    assert found == [
        (
            "factors.workload[0]: workload file 'mine.properties': recordcount is not set: YCSB "
            "reads that as 2^31 - 1 records, a load that does not end here; give recordcount of "
            "at least 1"
        ),
        (
            "factors.workload[0]: workload file 'mine.properties': operationcount is not set (no "
            "limit) and maxexecutiontime is not set: the run phase would never end; give "
            "operationcount of at least 1, a maxexecutiontime, or a stop rule "
            "(`stop: {rule: fixed-time, seconds: 30}`)"
        ),
    ]


def test_an_operation_count_of_0_is_fine_with_a_time_limit_or_a_stop_rule(tmp_path):
    text = BASE.replace("WORKLOAD", "workloadc") + "properties: {operationcount: 0}\n"
    [problem] = problems(text, tmp_path)
    assert problem.startswith("properties.operationcount: operationcount is 0 (no limit)")
    parse_spec_text(
        text.replace("{operationcount: 0}", "{operationcount: 0, maxexecutiontime: 5}"),
        "m.yaml",
        tmp_path,
    )
    parse_spec_text(
        BASE.replace("WORKLOAD", "workloadc") + "stop: {rule: fixed-time, seconds: 5}\n",
        "m.yaml",
        tmp_path,
    )


@pytest.mark.parametrize(
    ("job", "extra", "message"),
    [
        (
            "{rw: read, size: -1}",
            "",
            "factors.workload[0]: job 'fio-read': size: '-1' is not a size",
        ),
        ("{rw: read, size: 10%}", "", "job 'fio-read': size: '10%' is not a size"),
        ("{rw: read}", "", "job 'fio-read': size: required; the load lays out"),
        ("{rw: read, bs: 8k, size: 4k}", "", "size: '4k' holds no whole block of 8192 bytes"),
        # fio's reading: 4KiB is 4000 bytes under the default kb_base=1024, 4k is 4096.
        ("{rw: read, bs: 4k, size: 4KiB}", "", "size: '4KiB' holds no whole block of 4096 bytes"),
        (
            "{rw: read, bs: 4KiB, size: 4k, kb_base: 1000}",
            "",
            "size: '4k' holds no whole block of 4096 bytes",
        ),
        (
            "{rw: read, size: 1m, numjobs: 2, offset_increment: -4k}",
            "",
            "job 'fio-read': offset_increment: '-4k' is not a size",
        ),
        ("{rw: read, size: 1m}", "properties: {fio.size: -1}\n", "properties.fio.size: job"),
    ],
)
def test_a_fio_job_whose_load_cannot_be_laid_out_is_refused(tmp_path, job, extra, message):
    text = BASE.replace("WORKLOAD", f"{{kind: fio, job: {job}}}") + extra
    text += "stop: {rule: fixed-time, seconds: 1}\n"
    found = problems(text, tmp_path)
    assert any(message in p for p in found), found
