"""`contio advise` as a user runs it: profile files in their directory, the recommended
placement beside the naive one, and bad input refused with exit code 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from profiles import profile

from contio_command import contio_in


@pytest.fixture
def unfair(tmp_path) -> Path:
    """Paper 003's unfair mix as profile files: sequential writers, random readers."""
    profile("writer", 55.0, sequential=True).dump(tmp_path / "writer.profile.json")
    profile("reader", 55.0).dump(tmp_path / "reader.profile.json")
    return tmp_path


MIX = ["writer.profile.json", "writer.profile.json", "reader.profile.json", "reader.profile.json"]


def _worst(stdout: str, label: str) -> float:
    match = re.search(
        rf"^{label}: aggregate [0-9.]+ × alone, worst member ([0-9.]+)", stdout, re.MULTILINE
    )
    assert match, stdout
    return float(match[1])


def test_the_unfair_mix_is_advised_like_with_like(unfair):
    done = contio_in(unfair, "advise", *MIX, "--places", "sdb,sdc", "--cores", "8")
    assert done.returncode == 0, done.stderr
    assert "16 placements searched" in done.stdout
    assert _worst(done.stdout, "recommended") > _worst(done.stdout, "naive")
    assert re.search(r"kept writer(#2)? apart from reader", done.stdout)
    checked = contio_in(unfair, "advise", *MIX, "--places", "sdb,sdc", "--cores", "8",
                        "--check", "writer=sdb,writer#2=sdc,reader=sdb,reader#2=sdc")  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert _worst(checked.stdout, "yours") == _worst(checked.stdout, "naive")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--check", "writer=sdb"], "--check: no place for writer#2, reader, reader#2"),
        (["--check", "writer=sdx,writer#2=sdb,reader=sdb,reader#2=sdb"], "sdx not among --places"),
        (["--check", "nobody=sdb"], "'nobody' is not a member"),
        (["--weight", "writer=2"], "--weight: weights only count with --objective weighted"),
        (["--objective", "weighted", "--weight", "writer=-1"], "not a positive number"),
        (["--objective", "speed"], "'speed' is not one of"),
        (["--places", "n1:sdb,n2:sdb", "--validate"], "--validate: runs on this host"),
        (["--sharing", "fast"], "'fast' is not one of"),
    ],
)
def test_bad_input_names_the_option(unfair, args, says):
    done = contio_in(unfair, "advise", *MIX, "--places", "sdb,sdc", *args)
    assert done.returncode == 2, done.stdout
    assert says in done.stderr


def test_a_profile_of_another_schema_is_refused(unfair):
    path = unfair / "writer.profile.json"
    document = json.loads(path.read_text())
    document["schema"] = "contio-profile/0"
    path.write_text(json.dumps(document))
    done = contio_in(unfair, "advise", *MIX, "--places", "sdb,sdc")
    assert done.returncode == 2
    assert "schema: 'contio-profile/0' is not a profile this contio reads" in done.stderr
