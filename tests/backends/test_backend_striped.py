"""The `striped` backend: btrfs RAID0 over 3 loop devices for real; the LVM stack's
commands and the device-mapper detection as units (this kernel has no device-mapper)."""

from __future__ import annotations

import subprocess

import pytest

from contio.backends import registry
from contio.backends.striping_commands import btrfs_raid0_argv, lvm_argvs
from contio.errors import BackendOptionError, BackendUnavailableError
from contio.host import block_device, command, device_mapper, loop_device
from contio.qos.control_spec import IoControlSet, IoGroupControls
from contio.qos.io_groups import CgroupIoController
from contio.samplers.phase import data_disk, member_disks


def test_btrfs_raid0_over_three_loop_devices(state_dir, tmp_path, no_leaks, engine_verify):
    backend = registry.create(
        "striped", {"method": "btrfs", "loop_count": 3, "loop_size": "512MiB"}
    )
    with backend:
        data_dir = backend.new_directory("fio")
        # 32 MiB of 64 KiB blocks: every 64 KiB stripe of every device, many times over.
        verified = engine_verify(data_dir, tmp_path, direct=True, size="32m")
        assert verified.checked == verified.written == 512
        described = backend.describe()
        assert described["method"] == "btrfs" and described["stripes"] == 3
        assert described["btrfs_profiles"]["Data"] == "RAID0"
        assert described["btrfs_profiles"]["Metadata"] == "RAID0"
        assert described["mount"]["fstype"] == "btrfs"
        # The mount table names one loop device; the sampled disk is all three, so a
        # run's device bytes are the volume's, not a third of them.
        attached = sorted(p.removeprefix("/dev/") for p in loop_device.attached_to(backend.workdir))
        assert len(attached) == 3
        assert sorted(member_disks(data_disk([data_dir]))) == attached
        # A blkio limit names one disk: on a stripe it would hold one member only.
        throttle = IoControlSet(groups=[IoGroupControls(read_bps=10_000_000)])
        reason = CgroupIoController(prefix="striped-test").unavailable_reason(
            throttle, device=str(data_dir)
        )
        assert reason is not None and "spans 3 disks" in reason
        label = backend.instance
    assert loop_device.attached_to(backend.workdir) == []
    shown = subprocess.run(
        ["btrfs", "filesystem", "show"], capture_output=True, text=True, check=True
    )
    assert label not in shown.stdout, "btrfs still knows the removed file system"


def test_auto_records_which_stack_and_why(state_dir, no_leaks):
    backend = registry.create("striped", {"loop_count": 2, "loop_size": "512MiB"})
    with backend:
        described = backend.describe()
    support = device_mapper.probe()
    assert described["method"] == ("lvm" if support.available else "btrfs")
    assert support.reason in described["method_reason"]


def test_lvm_on_this_kernel_stops_with_the_reason_or_runs(state_dir, no_leaks):
    support = device_mapper.probe()
    if not support.available:
        backend = registry.create("striped", {"method": "lvm", "loop_size": "512MiB"})
        with pytest.raises(BackendUnavailableError, match="device-mapper"):
            backend.provision()
        pytest.skip(f"LVM striping cannot run here: {support.reason}")
    backend = registry.create("striped", {"method": "lvm", "loop_size": "512MiB"})
    with backend:
        (backend.new_directory("x") / "f").write_bytes(b"lvm")
        assert backend.describe()["mount"]["fstype"] == "xfs"


def test_lvm_commands():
    argvs = lvm_argvs(["/dev/nvme1n1", "/dev/nvme2n1", "/dev/nvme3n1"], "vg0", "data", 256 * 1024)
    assert argvs[0] == [
        "pvcreate",
        "--yes",
        "--force",
        "/dev/nvme1n1",
        "/dev/nvme2n1",
        "/dev/nvme3n1",
    ]
    assert argvs[1] == ["vgcreate", "--yes", "vg0", "/dev/nvme1n1", "/dev/nvme2n1", "/dev/nvme3n1"]
    lvcreate = argvs[2]
    assert lvcreate[lvcreate.index("--stripes") + 1] == "3"
    assert lvcreate[lvcreate.index("--stripesize") + 1] == "256k"
    assert lvcreate[-3:] == ["--name", "data", "vg0"]


def test_btrfs_command():
    assert btrfs_raid0_argv(["/dev/loop1", "/dev/loop2"], "lbl") == [
        "mkfs.btrfs", "-q", "-L", "lbl", "-d", "raid0", "-m", "raid0",
        "/dev/loop1", "/dev/loop2",
    ]  # fmt: skip
    # Forced only when the spec says `erase_existing`; the UUID is contio's own.
    forced = btrfs_raid0_argv(["/dev/loop1", "/dev/loop2"], "lbl", uuid="u-1", force=True)
    assert forced[:2] == ["mkfs.btrfs", "-f"] and forced[-4:] == ["-U", "u-1", *forced[-2:]]


def test_device_mapper_detection_from_proc_misc(tmp_path):
    misc = tmp_path / "misc"
    misc.write_text(" 237 loop-control\n 229 fuse\n")
    absent = device_mapper.probe(misc, tmp_path / "no-such-dir")
    assert not absent.available
    assert "does not list 'device-mapper'" in absent.reason
    # Listed in /proc/misc: `dmsetup targets` decides. Stand-ins for dmsetup, since this
    # kernel has no device-mapper: missing, failing, and listing targets.
    misc.write_text(" 236 device-mapper\n 229 fuse\n")
    missing = device_mapper.probe(misc, tmp_path / "none", dmsetup="contio-test-no-dmsetup")
    assert not missing.available and "contio-test-no-dmsetup not found" in missing.reason
    failing = device_mapper.probe(misc, tmp_path / "none", dmsetup="false")
    assert not failing.available and "`false targets` failed" in failing.reason
    lister = tmp_path / "dmsetup"
    lister.write_text("#!/bin/sh\nprintf 'linear v1.4.0\\nerror v1.6.0\\n'\n")
    lister.chmod(0o755)
    no_stripes = device_mapper.probe(misc, tmp_path / "none", dmsetup=str(lister))
    assert not no_stripes.available and "lacks the 'striped' target" in no_stripes.reason
    lister.write_text("#!/bin/sh\nprintf 'striped v1.6.0\\nlinear v1.4.0\\n'\n")
    assert device_mapper.probe(misc, tmp_path / "none", dmsetup=str(lister)).available


def test_lvm_stack_commands_journal_and_undo_order(tmp_path, monkeypatch):
    """The LVM path end to end, against a stand-in for `command.run` that records each
    argv and succeeds: this kernel has no device-mapper, so LVM cannot run for real."""
    ran: list[tuple[list[str], list[str]]] = []  # (argv, journal kinds when it ran)
    backend = None

    def record(argv, check=True, **_):
        kinds = [e["kind"] for e in backend.journal.entries] if backend else []
        ran.append(([str(a) for a in argv], kinds))
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(command, "run", record)
    monkeypatch.setattr(command, "require_program", lambda program, package: program)
    monkeypatch.setattr(block_device, "is_block_device", lambda device: True)
    monkeypatch.setattr(
        device_mapper, "probe", lambda: device_mapper.DeviceMapperSupport(True, "stand-in")
    )
    devices = ["/dev/sdx", "/dev/sdy", "/dev/sdz"]
    backend = registry.create(
        "striped", {"method": "lvm", "devices": devices, "stripe_size": "256KiB"},
        workdir=tmp_path / "w",
    )  # fmt: skip
    backend.provision()
    vg = f"contio_{backend.instance.replace('-', '_')}"
    # What each device holds is read first (`wipefs --no-act`, changing nothing).
    probes = [argv for argv, _ in ran if argv[:2] == ["wipefs", "--no-act"]]
    assert [p[-1] for p in probes] == devices
    made = [argv for argv, _ in ran if argv[:2] != ["wipefs", "--no-act"]]
    assert [a[0] for a in made] == ["pvcreate", "vgcreate", "lvcreate", "mkfs.xfs", "mount"]
    assert made[2][made[2].index("--stripes") + 1] == "3"
    assert made[2][made[2].index("--stripesize") + 1] == "256k"
    assert made[3][-1] == made[4][-2] == f"/dev/{vg}/data"
    # Each resource is in the journal before the command that makes it runs.
    kinds = [k for argv, k in ran if argv[:2] != ["wipefs", "--no-act"]]
    assert "lvm-pv" in kinds[0] and "lvm-vg" in kinds[1] and "mount" in kinds[4]
    described = backend.describe()
    assert (described["method"], described["stripes"]) == ("lvm", 3)
    assert described["stripe_size_bytes"] == 256 * 1024
    ran.clear()
    backend.teardown()  # the stand-in mounted nothing: no umount, then VG before PVs
    assert [argv for argv, _ in ran] == [
        ["vgremove", "--force", "--yes", vg],
        ["pvremove", "--force", "--yes", *devices],
    ]


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"method": "raid0"}, "method"),
        ({"devices": ["/dev/sdb"]}, "devices"),
        ({"stripe_size": "3KiB"}, "stripe_size"),
        ({"method": "btrfs", "stripe_size": "128KiB"}, "stripe_size"),
        ({"loop_count": 1}, "loop_count"),
    ],
)
def test_bad_options(options, option):
    with pytest.raises(BackendOptionError) as err:
        registry.create("striped", options)
    assert err.value.option == option
