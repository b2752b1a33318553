"""What contio tells of a place before anything runs (its capacity, its scheduler), and
the placement search keeping each place within what it holds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from profiles import profile

from contio.errors import UsageError
from contio.profile.placement import Member, advise, overfilled
from contio.profile.places import capacity, places_sharing
from contio.profile.schema import Profile
from contio.qos.device import resolve

GIB = 1024**3


def _with_data(found: Profile, data_bytes: float) -> Profile:
    point = found.scaling[0].model_copy(update={"data_bytes": data_bytes})
    return found.model_copy(update={"scaling": [point, *found.scaling[1:]]})


def test_a_places_capacity_comes_from_its_definition_or_its_disk(tmp_path):
    loop = {"type": "local", "mode": "device", "device": "loop", "loop_size": "2GiB"}
    assert capacity("a", loop) == 2 * GIB
    striped = {"type": "striped", "loop_count": 3, "loop_size": "1GiB"}
    assert capacity("s", striped) == 3 * GIB
    directory = capacity("d", {"type": "local-dir", "path": str(tmp_path)})
    assert directory is not None and directory == pytest.approx(
        shutil.disk_usage(tmp_path).free, rel=0.01
    )
    disk = resolve(tmp_path).name
    assert capacity(disk, None) is not None and capacity(disk, None) > 0  # a disk by name
    assert capacity("node2:sdb", None) is None  # another host's: unknown
    assert capacity("nosuchdisk", None) is None


def test_the_sharing_law_follows_the_disks_scheduler(tmp_path):
    disk = resolve(tmp_path).name
    text = Path(f"/sys/block/{disk}/queue/scheduler").read_text()
    chosen = next(w.strip("[]") for w in text.split() if w.startswith("["))
    expected = "fair" if chosen in ("bfq", "cfq") else "fifo"
    assert places_sharing([disk], None) == expected
    made_later = {"x": {"type": "local", "mode": "device", "device": "loop"}}
    assert places_sharing(["x"], made_later) == "fifo"  # nothing to read yet: the default


def test_the_search_keeps_each_place_within_what_it_holds():
    big = _with_data(profile("big", 50.0), 3 * GIB)
    small = _with_data(profile("small", 50.0), 1 * GIB)
    members = [Member("b1", big), Member("b2", big), Member("s", small)]
    rooms = {"d1": 4.0 * GIB, "d2": 4.0 * GIB}
    found = advise(members, ["d1", "d2"], "throughput", cores=8, capacity=rooms)
    # The two big ones cannot share a disk, whatever the model would prefer.
    assert found.best.placement["b1"] != found.best.placement["b2"]
    assert overfilled(members, found.best.placement, rooms) == []
    assert found.naive_overfills == []  # round-robin: b1→d1, b2→d2, s→d1: 4 GiB on d1
    tight = {"d1": 3.5 * GIB, "d2": 4.5 * GIB}  # s fits only beside b2
    assert advise(members, ["d1", "d2"], "fairness", 8, capacity=tight).naive_overfills == [
        "d1 would hold 4.0 GiB of data in 3.5 GiB"
    ]


def test_data_that_fits_no_place_or_no_placement_is_refused():
    huge = Member("huge", _with_data(profile("huge", 50.0), 5 * GIB))
    with pytest.raises(UsageError, match=r"huge: its data takes 5\.0 GiB .* cannot fit any place"):
        advise([huge], ["d1", "d2"], "fairness", 8, capacity={"d1": 4.0 * GIB, "d2": 4.0 * GIB})
    three = [Member(f"m{k}", _with_data(profile("m", 50.0), 3 * GIB)) for k in range(3)]
    with pytest.raises(UsageError, match="no placement fits"):
        advise(three, ["d1", "d2"], "fairness", 8, capacity={"d1": 4.0 * GIB, "d2": 4.0 * GIB})
    # Unknown capacity holds anything.
    assert advise(three, ["d1", "d2"], "fairness", 8, capacity={"d1": None, "d2": None})
