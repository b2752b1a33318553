"""The runner's cell states: a cell never stays `running` once its run has ended."""

from __future__ import annotations

from contio.experiment.load import parse_spec_text
from contio.results.index import ResultsIndex
from contio.run.phase_runner import PhaseRunner
from contio.run.runner import Runner

SPEC = """
name: abort
backend: {type: local-dir, path: DATA}
factors:
  workload:
    - {kind: sysbench, name: bad, options: {file-test-mode: rndrd, file-total-size: -1M}}
    - {kind: sysbench, name: good, options: {file-test-mode: rndrd, file-total-size: 64K, file-num: 1}}
stop: {rule: fixed-time, seconds: 1, repetitions: 1}
"""


class UncheckedRunner(Runner):
    """Stands in for an engine check that lets a value through which the engine refuses
    only when the phase runs; `contio plan`/`run` check these sizes since issue 12."""

    def check_with_engine(self) -> None:
        pass


def test_an_engine_refusal_mid_run_fails_the_cell_and_the_run_goes_on(tmp_path, engine):
    # The engine exits 2 in the load, and again in the kind's cleanup of the data: that
    # second refusal used to escape the runner and leave the cell `running` for good.
    text = SPEC.replace("DATA", str(tmp_path))
    spec = parse_spec_text(text, "abort.yaml", tmp_path)
    outcome = UncheckedRunner(spec, text, tmp_path / "out").run()
    index = ResultsIndex.open(outcome.folder.path)
    try:
        cells = {c["label"].split("workload=")[1].split(" ")[0]: c for c in index.cells()}
    finally:
        index.close()
    assert cells["bad"]["status"] == "failed"
    assert "--file-total-size: '-1M' is not valid" in cells["bad"]["reason"]
    assert cells["good"]["status"] == "done"
    assert [p.name for p in tmp_path.iterdir() if p.name != "out"] == []  # data released


MIX_SPEC = """
name: places
backends:
  a: {type: local-dir, path: A}
  b: {type: local-dir, path: B}
mixes:
  apart: [{workload: {kind: fio, name: w, job: {rw: write, bs: 64k, size: 256k}}, backend: b},
          {workload: {kind: fio, name: r, job: {rw: read, bs: 64k, size: 256k}}}]
factors:
  backend: [a]
  mix: [apart]
stop: {rule: fixed-time, seconds: 1, repetitions: 1}
"""


class LocationRecorder(PhaseRunner):
    """Notes where each container's data was placed before the runner releases it."""

    placed: list[list[str]]

    def release_data(self) -> None:
        if self._loaded is not None:
            self.placed.append([str(loc.path) for loc in self._loaded.locations])
        super().release_data()


def test_a_mix_member_with_its_own_backend_keeps_its_data_there(tmp_path, engine):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    text = MIX_SPEC.replace("path: A", f"path: {a}").replace("path: B", f"path: {b}")
    spec = parse_spec_text(text, "places.yaml", tmp_path)
    runner = Runner(spec, text, tmp_path / "out")
    recorder = LocationRecorder(spec, "places")
    recorder.placed = []
    runner.phases = recorder
    outcome = runner.run()
    assert outcome.folder is not None
    [(writer, reader)] = recorder.placed
    assert writer.startswith(str(b)) and reader.startswith(str(a))
    assert list(a.iterdir()) == [] and list(b.iterdir()) == []  # both released
