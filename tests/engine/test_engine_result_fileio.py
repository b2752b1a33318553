"""The real engine's file workloads read back through `contio.engine.result`, and
its sysbench-style text through the benchmark harness's sysbench parser."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.parsers import parse_sysbench_fileio
from contio.engine.result import read_result


def _engine(engine: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(engine), *args], check=False, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done


def test_sysbench_fileio_document_and_text_agree(engine: Path, tmp_path: Path) -> None:
    common = [
        "sysbench",
        "fileio",
        "--file-num=2",
        "--file-total-size=2M",
        f"--file-dir={tmp_path}",
    ]
    _engine(engine, *common, "prepare")
    json_path = tmp_path / "run.json"
    done = _engine(
        engine,
        *common,
        "--file-test-mode=rndrw",
        "--events=300",
        "--time=0",
        "run",
        "-json",
        str(json_path),
    )
    result = read_result(json_path)
    assert result.kind == "sysbench"
    assert result.io is not None
    reads = result.operations_by_type["READ"].count
    writes = result.operations_by_type["WRITE"].count
    assert result.operations == 300
    assert result.io["bytes_read"] == reads * 16384
    assert result.io["bytes_written"] == writes * 16384
    rates = parse_sysbench_fileio(done.stdout)
    seconds = result.runtime_ms / 1000
    assert abs(rates.reads_per_sec - reads / seconds) < 0.01
    assert abs(rates.writes_per_sec - writes / seconds) < 0.01
    _engine(engine, *common, "cleanup")
    assert not (tmp_path / "test_file.0").exists()


def test_fio_document_reports_regions_and_verification(engine: Path, tmp_path: Path) -> None:
    job = tmp_path / "job.fio"
    job.write_text(
        f"[w]\nfilename={tmp_path / 'data'}\nrw=randwrite\nbs=4k\nsize=64k\n"
        "numjobs=2\noffset_increment=64k\nverify=crc32c\n"
    )
    json_path = tmp_path / "fio.json"
    done = _engine(engine, "fio", "--contio-core", str(job), "-json", str(json_path))
    result = read_result(json_path)
    assert result.kind == "fio"
    assert result.operations == 32
    assert result.io is not None
    assert [s["regions"][0]["offset"] for s in result.io["streams"]] == [0, 65536]
    assert result.io["verify"]["blocks_checked"] == 32
    assert result.io["verify"]["mismatches"] == 0
    assert "IOPS=" in done.stdout
