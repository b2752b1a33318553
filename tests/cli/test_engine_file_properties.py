"""Engine properties that name a file for the engine to write (YCSB's `exportfile`,
`measurement.raw.output_file`, `hdrhistogram.output.path`, …) are refused by `plan` and
`run`, wherever they are given, naming the field: contio decides where the engine
writes. They were accepted, and the engine wrote where they pointed."""

from __future__ import annotations

import pytest

from contio_command import contio_in

BASE = (
    "name: files\ntargets: [null]\nthreads: [1]\nrepetitions: 1\n"
    "backend: {type: local-dir, path: ./data}\n"
)
CASES = {
    "properties": (
        (
            "workloads: [workloada]\n"
            "properties: {recordcount: 20, operationcount: 100, exportfile: VICTIM}\n"
        ),
        "properties: exportfile names a file for the engine to write its results to",
    ),
    "factor": (
        (
            "workloads: [workloada]\nproperties: {recordcount: 20, operationcount: 100, "
            "measurementtype: raw}\nfactors: {properties: {measurement.raw.output_file: [VICTIM]}}\n"
        ),
        "factors.properties.measurement.raw.output_file[0]: measurement.raw.output_file names",
    ),
    "load": (
        (
            "workloads: [workloada]\nproperties: {recordcount: 20, operationcount: 100}\n"
            "load: {properties: {hdrhistogram.fileoutput: true, hdrhistogram.output.path: VICTIM}}\n"
        ),
        "load.properties.hdrhistogram.output.path: hdrhistogram.output.path names where",
    ),
    "workload-file": (
        "workloads: [./w.properties]\n",
        "workloads[0]: workload file 'w.properties': exportfile names a file for the engine",
    ),
}


@pytest.mark.parametrize("place", list(CASES))
def test_a_property_naming_a_file_to_write_is_refused(tmp_path, place):
    (tmp_path / "data").mkdir()
    victim = tmp_path / "victim"
    text, says = CASES[place]
    (tmp_path / "spec.yaml").write_text(BASE + text.replace("VICTIM", str(victim)))
    (tmp_path / "w.properties").write_text(
        f"recordcount=20\noperationcount=100\nexportfile={victim}\n"
    )
    command = "run" if place == "workload-file" else "plan"
    done = contio_in(tmp_path, command, "spec.yaml", "--results-dir", "results")
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr, done.stderr
    assert "contio decides where the engine writes" in done.stderr
    assert not victim.exists() and not (tmp_path / "results").exists()
