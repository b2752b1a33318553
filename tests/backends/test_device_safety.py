"""A device of the user's named by a `local` or `striped` backend: contio formats it only
when it is empty and unused, or erases it when the spec says `erase_existing: true`
(and `contio plan` says so); teardown erases only the file system contio made.

Real loop devices over the test's own image files stand in for the user's disks; what
they hold is checksummed before and after every command that could touch them, run as
a user runs contio (`python -m contio …` in a folder of its own).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from contio.host.undo_journal import UndoJournal
from contio_command import contio_in

SPEC = """\
name: devsafe
backends:
  ssd: {definition}
factors: {{target: [null], workload: [workloadc], threads: [1]}}
stop: {{rule: fixed-ops, operations: 100, repetitions: 1}}
properties: {{recordcount: 10}}
"""


def need_root_and(*programs: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, mounts)")
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"missing programs: {', '.join(missing)}")


def sha256(path: Path | str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


def signatures(device: str) -> list[tuple[str, str]]:
    """(type, UUID) of each signature on `device`, as util-linux sees them."""
    listed = json.loads(run("wipefs", "--no-act", "--json", device) or "{}")
    return [(s["type"], s["uuid"]) for s in listed.get("signatures", [])]


class UserDisk:
    """A loop device over an image file of the test's: the user's disk, with an ext4
    file system holding one file unless made `empty`."""

    def __init__(self, image: Path, size: str, empty: bool = False):
        run("truncate", "-s", size, str(image))
        self.device = run("losetup", "--find", "--show", str(image))
        if not empty:
            run("mkfs.ext4", "-q", self.device)
            mount = image.with_suffix(".mnt")
            mount.mkdir()
            run("mount", self.device, str(mount))
            (mount / "thesis.tex").write_text("years of work\n" * 1000)
            run("umount", str(mount))
            mount.rmdir()

    def detach(self) -> None:
        subprocess.run(["losetup", "--detach", self.device], check=False)


@pytest.fixture
def user_disk(tmp_path: Path) -> Iterator[UserDisk]:
    need_root_and("losetup", "mkfs.ext4", "wipefs", "mount")
    disk = UserDisk(tmp_path / "user-disk.img", "64M")
    yield disk
    disk.detach()


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    """A user's regular file, next to the disks."""
    path = tmp_path / "notes.txt"
    path.write_bytes(b"mine\n" * 4096)
    return path


def in_own_folder(tmp_path: Path, definition: str) -> Path:
    """A fresh working folder holding `spec.yaml` with the backend `definition`."""
    folder = tmp_path / "work"
    folder.mkdir(exist_ok=True)
    (folder / "spec.yaml").write_text(SPEC.format(definition=definition))
    return folder


def test_a_device_with_a_file_system_is_refused_and_left_as_it_was(tmp_path, user_disk, user_file):
    before = sha256(user_disk.device), sha256(user_file)
    folder = in_own_folder(
        tmp_path, f"{{type: local, mode: device, device: {user_disk.device}, format: ext4}}"
    )
    for command in ("plan", "run"):
        done = contio_in(folder, command, "spec.yaml")
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert f"backends.ssd.device: {user_disk.device} holds data: ext4" in done.stderr
        assert "erase_existing: true" in done.stderr
        assert not (folder / "results").exists(), f"{command} made a results folder"
    assert contio_in(folder, "cleanup").returncode == 0
    assert (sha256(user_disk.device), sha256(user_file)) == before


def test_striped_devices_holding_data_are_refused_before_anything_is_made(
    tmp_path, user_disk, user_file
):
    other = UserDisk(tmp_path / "second.img", "64M", empty=True)
    try:
        before = sha256(user_disk.device), sha256(other.device), sha256(user_file)
        folder = in_own_folder(
            tmp_path, f"{{type: striped, devices: [{other.device}, {user_disk.device}]}}"
        )
        done = contio_in(folder, "run", "spec.yaml")
        assert done.returncode == 2, done.stderr
        assert f"backends.ssd.devices[1]: {user_disk.device} holds data: ext4" in done.stderr
        assert "devices[0]" not in done.stderr  # the empty one may be used
        assert not (folder / "results").exists()
        assert (sha256(user_disk.device), sha256(other.device), sha256(user_file)) == before
    finally:
        other.detach()


def test_erase_existing_erases_the_device_and_plan_says_so(tmp_path, user_disk, user_file):
    kept = sha256(user_file)
    folder = in_own_folder(
        tmp_path,
        f"{{type: local, mode: device, device: {user_disk.device}, format: ext4, "
        "erase_existing: true}",
    )
    plan = contio_in(folder, "plan", "spec.yaml")
    assert plan.returncode == 0, plan.stderr
    assert f"will erase {user_disk.device}: it holds ext4" in " ".join(plan.stdout.split())
    [(_, old)] = signatures(user_disk.device)
    done = contio_in(folder, "run", "spec.yaml", timeout=600)
    assert done.returncode == 0, done.stderr
    # The user's file system was erased, as asked; contio's own was removed at teardown.
    assert signatures(user_disk.device) == [], old
    assert sha256(user_file) == kept


def test_a_device_in_use_is_refused_even_with_erase_existing(tmp_path, user_disk):
    mount = tmp_path / "mounted"
    mount.mkdir()
    run("mount", user_disk.device, str(mount))
    try:
        folder = in_own_folder(
            tmp_path,
            f"{{type: local, mode: device, device: {user_disk.device}, format: ext4, "
            "erase_existing: true}",
        )
        done = contio_in(folder, "plan", "spec.yaml")
        assert done.returncode == 2, done.stdout
        assert f"{user_disk.device} is in use (mounted at {mount})" in done.stderr
        assert (mount / "thesis.tex").read_text().startswith("years of work")
    finally:
        run("umount", str(mount))


@pytest.mark.parametrize(
    ("definition", "field", "says"),
    [
        ("{{type: local, mode: device, device: {file}, format: ext4}}", "device", "is a regular file"),
        ("{{type: local, mode: device, device: /dev/no-such-disk, format: ext4}}", "device", "does not exist"),
        ("{{type: local, mode: device, device: {empty}, format: xfs}}", "format", "XFS needs at least 300MiB"),
        ("{{type: local, mode: device, device: {empty}}}", "device", "holds no file system to mount"),
        ("{{type: striped, devices: [{empty}, /dev/no-such-disk]}}", "devices[1]", "does not exist"),
        ("{{type: striped, method: btrfs, loop_count: 2, loop_size: 64MiB}}", "loop_size", "BTRFS needs at least 125MiB"),
        ("{{type: path, path: {tmp}/no-such-dir}}", "path", "is not an existing directory"),
        ("{{type: local-dir, path: /proc}}", "path", "/proc is on proc"),
        ("{{type: local-dir, path: /sys/kernel}}", "path", "pseudo file system"),
    ],
)  # fmt: skip
def test_plan_refuses_what_run_would_refuse_at_provisioning(
    tmp_path, user_file, definition, field, says
):
    need_root_and("losetup", "wipefs")
    empty = UserDisk(tmp_path / "small.img", "64M", empty=True)
    try:
        before = sha256(user_file), sha256(empty.device)
        spec = definition.format(file=user_file, empty=empty.device, tmp=tmp_path)
        folder = in_own_folder(tmp_path, spec)
        for command in ("plan", "run"):
            done = contio_in(folder, command, "spec.yaml")
            assert done.returncode == 2, (command, done.stdout, done.stderr)
            assert f"backends.ssd.{field}: " in done.stderr and says in done.stderr, done.stderr
            assert "Traceback" not in done.stderr
            assert not (folder / "results").exists(), f"{command} made a results folder"
        assert (sha256(user_file), sha256(empty.device)) == before
    finally:
        empty.detach()


def test_teardown_erases_only_the_file_system_contio_made(tmp_path, user_disk):
    """A journal left by a killed run names the file system contio made; the user has
    since made another on the device: cleanup's undo must leave that one alone."""
    before = sha256(user_disk.device)
    journal = UndoJournal(tmp_path / "journal.json")
    journal.record("fs-signature", device=user_disk.device, type="ext4", uuid=str(uuid.uuid4()))
    journal.undo_all()
    assert sha256(user_disk.device) == before
    assert [kind for kind, _ in signatures(user_disk.device)] == ["ext4"]


def test_teardown_erases_the_file_system_contio_made(tmp_path):
    need_root_and("losetup", "mkfs.ext4", "wipefs")
    disk = UserDisk(tmp_path / "ours.img", "64M", empty=True)
    try:
        made = str(uuid.uuid4())
        journal = UndoJournal(tmp_path / "journal.json")
        journal.record("fs-signature", device=disk.device, type="ext4", uuid=made)
        run("mkfs.ext4", "-q", "-U", made, disk.device)
        journal.undo_all()
        assert signatures(disk.device) == []
    finally:
        disk.detach()
