"""A backend's host paths in a spec are relative to the spec's folder, as its workload
paths are, whatever folder contio runs in; `contio plan` shows them resolved."""

from __future__ import annotations

import json
from pathlib import Path

from contio.backends import registry
from contio_command import contio_in

SPEC = """\
name: relpath
backend: {type: local-dir, path: data}
factors: {target: [null], workload: [workloadc], threads: [1]}
stop: {rule: fixed-ops, operations: 100, repetitions: 1}
properties: {recordcount: 10}
"""


def spec_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "data").mkdir(parents=True)
    (folder / "spec.yaml").write_text(SPEC)
    (folder / "data" / "mine.txt").write_text("kept")
    return folder


def test_a_relative_local_dir_path_is_the_spec_folders(tmp_path, engine):
    project = spec_folder(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()  # holds no `data`: resolved here, the path would not exist
    plan = contio_in(elsewhere, "plan", str(project / "spec.yaml"))
    assert plan.returncode == 0, plan.stderr
    assert f"local-dir (path={project / 'data'})" in plan.stdout
    done = contio_in(elsewhere, "run", str(project / "spec.yaml"))
    assert done.returncode == 0, done.stderr
    [folder] = (elsewhere / "results").iterdir()
    [backend] = json.loads((folder / "backends.json").read_text())
    assert backend["description"]["base"] == str(project / "data")
    assert sorted(p.name for p in (project / "data").iterdir()) == ["mine.txt"]


def test_the_default_spec_plans_from_any_folder_and_names_its_directory(tmp_path):
    done = contio_in(tmp_path, "plan")
    assert done.returncode == 0, done.stderr
    assert "(the temp directory)" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_only_relative_host_paths_are_anchored(tmp_path):
    data = {
        "backends": {
            "a": {"type": "local-dir", "path": "data"},
            "b": {"type": "path", "path": "/mnt/ceph"},
            "c": {"type": "gluster", "inventory": "hosts.yaml"},
            "d": {"type": "local-dir", "path": "~/data"},
            "e": {"type": "nfs", "export_path": "srv"},
            "f": "not a mapping",
        }
    }
    anchored = registry.anchor_spec_paths(data, tmp_path)["backends"]
    assert anchored["a"]["path"] == str(tmp_path / "data")
    assert anchored["b"]["path"] == "/mnt/ceph"
    assert anchored["c"]["inventory"] == str(tmp_path / "hosts.yaml")
    assert anchored["d"]["path"] == "~/data"  # the user's home: not relative
    assert anchored["e"]["export_path"] == "srv"  # a path on the NFS server
    assert anchored["f"] == "not a mapping"  # left for the spec's checks to name
