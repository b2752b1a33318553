"""The profile file: written and read back whole; another schema version, broken JSON or
a bad field is refused naming the file and what to do."""

from __future__ import annotations

import json

import pytest

from contio.errors import ProfileError
from contio.profile.schema import SCHEMA, Application, Profile, ScalingPoint, load_profile


def _point(containers: int, ops: float) -> ScalingPoint:
    return ScalingPoint(
        containers=containers, repetitions=2, ops_per_sec=ops, ops_per_sec_half_width=1.0,
        per_container_ops_per_sec=ops / containers, normalized=ops / containers / 100.0,
        read_bytes_per_sec=1e6, write_bytes_per_sec=None, read_iops=250.0, write_iops=None,
        bytes_per_io=4096.0, merged_percent=0.5, disk_utilization_percent=80.0,
        queue_depth=1.2, cpu_cores=0.3, cpu_seconds_per_op=0.003, host_cpu_percent=20.0,
    )  # fmt: skip


def _profile() -> Profile:
    application = Application(
        name="kv", levels={"target": "lsm"}, backend={"name": "b"}, disk="vda"
    )
    return Profile(
        application=application, host={"cores": 2}, measured="2026-11-29T00:00:00Z",
        results="/r", scaling=[_point(1, 100.0), _point(2, 150.0)],
        saturation_containers=None, valley=None,
    )  # fmt: skip


def test_a_profile_round_trips_and_says_its_schema(tmp_path):
    path = tmp_path / "kv.profile.json"
    _profile().dump(path)
    document = json.loads(path.read_text())
    assert document["schema"] == SCHEMA == "contio-profile/1"
    again = load_profile(path)
    assert again == _profile()
    assert again.solo.containers == 1 and again.scaling[1].normalized == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            lambda d: d.update(schema="contio-profile/2"),
            "schema: 'contio-profile/2' is not a profile",
        ),
        (lambda d: d.pop("schema"), "schema: None is not a profile"),
        (lambda d: d["scaling"][0].update(containers=0), "scaling.0.containers"),
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d.update(scaling=[]), "scaling"),
    ],
)
def test_a_profile_of_another_version_or_with_a_bad_field_is_refused(tmp_path, change, says):
    path = tmp_path / "p.json"
    document = _profile().model_dump(mode="json", by_alias=True)
    change(document)
    path.write_text(json.dumps(document))
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert str(path) in str(caught.value) and says in str(caught.value)


def test_a_file_that_is_not_a_profile_is_refused(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ProfileError, match="not JSON"):
        load_profile(broken)
    with pytest.raises(ProfileError, match="cannot read it"):
        load_profile(tmp_path / "absent.json")
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    with pytest.raises(ProfileError, match="a profile is a JSON object"):
        load_profile(listed)
