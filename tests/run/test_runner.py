"""The runner's cell states: a cell never stays `running` once its run has ended."""

from __future__ import annotations

from contio.experiment.load import parse_spec_text
from contio.results.index import ResultsIndex
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
