"""Spec validation: unknown keys, bad levels and reserved properties name their field."""

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError, UsageError
from contio.experiment.load import parse_spec_text, read_default_spec, read_spec_file
from contio.experiment.matrix import expand
from contio.run.pricing import estimates
from contio.workload.files import packaged_workloads

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def workload_file(tmp_path: Path) -> Path:
    path = tmp_path / "mine.properties"
    path.write_text(
        "recordcount=100\noperationcount=100\nreadproportion=1\nrequestdistribution=uniform\n"
    )
    return path


def spec_text(**overrides: str) -> str:
    fields = {
        "name": "tiny",
        "targets": "[null]",
        "workloads": "[./mine.properties]",
        "threads": "[1, 2]",
        "repetitions": "2",
    } | overrides
    return "".join(f"{k}: {v}\n" for k, v in fields.items() if v is not None)


def problems(text: str, base: Path) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "t.yaml", base)
    return [str(p) for p in info.value.problems]


def test_a_valid_spec(tmp_path, workload_file):
    spec = parse_spec_text(
        spec_text(properties="{recordcount: 10, readallfields: true}"), "t.yaml", tmp_path
    )
    assert spec.targets == ["null"]
    assert spec.workloads[0].path == workload_file
    assert spec.workloads[0].name == "mine.properties"
    assert spec.threads == [1, 2]
    assert spec.backend_definitions() == {"local-dir": {"type": "local-dir"}}
    assert spec.runtime.type == "process"
    assert spec.properties_for("null") == {"recordcount": "10", "readallfields": "true"}


def test_unknown_top_level_key_lists_the_allowed_keys(tmp_path, workload_file):
    [problem] = problems(spec_text(treads="[1]"), tmp_path)
    assert problem.startswith("treads: unknown key; allowed keys here: name, description,")
    assert "threads" in problem


def test_unknown_nested_key_names_its_path(tmp_path, workload_file):
    [problem] = problems(spec_text(backend="{type: local-dir, paht: /tmp}"), tmp_path)
    assert problem == "backend.paht: 'paht' is not an option; allowed options: path"


def test_unknown_target_lists_the_known_ones(tmp_path, workload_file):
    [problem] = problems(spec_text(targets="[lsm, lsmm]"), tmp_path)
    assert problem == (
        "targets[1]: 'lsmm' is not a known target; "
        "allowed: null, lsm, btree, mysql, postgres, redis, mongodb, cassandra, mariadb, "
        "ferretdb"
    )


def test_unknown_workload_lists_the_packaged_ones(tmp_path):
    [problem] = problems(spec_text(workloads="[workloadz]"), tmp_path)
    allowed = ", ".join(packaged_workloads())
    assert problem == (
        f"workloads[0]: 'workloadz' is not a known workload; allowed: {allowed}, "
        "or a path to a workload file"
    )


def test_missing_workload_file_is_named(tmp_path):
    [problem] = problems(spec_text(workloads="[./nope.properties]"), tmp_path)
    assert problem.startswith("workloads[0]: workload file")
    assert str(tmp_path / "nope.properties") in problem


def test_bad_backend_type_lists_the_allowed(tmp_path, workload_file):
    [problem] = problems(spec_text(backend="{type: nfz}"), tmp_path)
    assert problem == (
        "backend.type: 'nfz' is not allowed; allowed: local-dir, gluster, local, nfs, path, striped"
    )


def test_registry_backend_options_are_checked_with_their_path(tmp_path, workload_file):
    [problem] = problems(spec_text(backend="{type: nfs}"), tmp_path)
    assert problem.startswith("backend.export_path:")
    text = spec_text(backends="{a: {type: nfs, export_path: /x, export_mode: maybe}}")
    [problem] = problems(text, tmp_path)
    assert problem.startswith("backends.a.export_mode:") and "'sync'" in problem


def test_backend_path_must_exist(tmp_path, workload_file):
    [problem] = problems(spec_text(backend=f"{{path: {tmp_path / 'no'}}}"), tmp_path)
    assert problem.startswith("backend.path:") and "not an existing directory" in problem


def test_every_problem_is_reported(tmp_path, workload_file):
    found = problems(spec_text(threads="[0, 4]", repetitions="0", name=None), tmp_path)
    paths = [p.split(":")[0] for p in found]
    assert paths == ["name", "threads[0]", "repetitions"]


def test_a_level_listed_twice(tmp_path, workload_file):
    assert problems(spec_text(threads="[1, 4, 4]"), tmp_path) == ["threads: 4 is listed twice"]
    assert problems(spec_text(targets="[lsm, lsm]"), tmp_path) == ["targets: 'lsm' is listed twice"]


def test_properties_contio_sets_itself_are_refused(tmp_path, workload_file):
    [problem] = problems(spec_text(properties="{lsm.dir: /x}"), tmp_path)
    assert problem == "properties: 'lsm.dir' is set by contio: the backend sets the data directory"
    [problem] = problems(spec_text(properties="{threadcount: 4}"), tmp_path)
    assert problem.startswith("properties: 'threadcount' is set by contio")


def test_target_namespaced_properties_go_only_to_their_target(tmp_path, workload_file):
    spec = parse_spec_text(
        spec_text(targets="[lsm, btree]", properties="{lsm.cache_bytes: 0, fieldcount: 10}"),
        "t.yaml",
        tmp_path,
    )
    assert spec.properties_for("lsm") == {"lsm.cache_bytes": "0", "fieldcount": "10"}
    assert spec.properties_for("btree") == {"fieldcount": "10"}


def test_yaml_syntax_errors_and_non_mappings(tmp_path):
    assert problems("name: [unclosed\n", tmp_path)[0].startswith("not valid YAML")
    assert problems("- a list\n", tmp_path) == ["a spec is a mapping of keys to values"]


def test_a_missing_spec_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot read spec"):
        read_spec_file(tmp_path / "absent.yaml")


def test_the_default_spec_is_valid_and_the_repo_copy_is_identical():
    spec, text = read_default_spec()
    assert spec.name == "default"
    assert spec.targets == ["lsm", "btree"]
    assert [w.name for w in spec.workloads] == ["workloada", "workloadb", "workloadc"]
    assert spec.threads == [1, 4, 16]
    repo_copy = REPO / "experiments" / "default.yaml"
    if repo_copy.exists():  # absent when testing an installed package outside the repo
        assert repo_copy.read_text() == text


# -- input that would otherwise be silently wrong (issue 12, point 11) ------------------


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("threads", "[true]", "threads[0]"),
        ("repetitions", "true", "repetitions"),
        ("load_threads", "false", "load_threads"),
        ("warmup_seconds", "true", "warmup_seconds"),
        ("stop", "{rule: fixed-time, seconds: true}", "stop.seconds"),
        ("factors", "{containers: [true]}", "factors.containers[0]"),
        ("io_controls", "{w: {groups: [{weight: true}]}}", "io_controls.w.groups[0].weight"),
        ("events", "[{node: true, at: 1, restart_at: 2}]", "events[0].node"),
    ],
)
def test_a_boolean_is_refused_where_a_number_is_expected(
    tmp_path, workload_file, field, value, path
):
    found = problems(spec_text(**{field: value}), tmp_path)
    assert any(p.startswith(f"{path}: ") and "is a boolean, not a number" in p for p in found), (
        found
    )


def test_a_key_given_twice_is_refused_naming_it_and_its_lines(tmp_path, workload_file):
    text = spec_text() + "threads: [8]\n"
    [problem] = problems(text, tmp_path)
    assert problem == (
        "line 6: key 'threads' is given twice in one mapping (first on line 4); "
        "YAML would silently keep the last value, keep one"
    )


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("repetitions", "1000000000000", "repetitions"),
        ("stop", "{rule: fixed-time, seconds: 1, repetitions: 1001}", "stop.repetitions"),
        ("stop", "{rule: adaptive, seconds: 1, max_repetitions: 5000}", "stop.max_repetitions"),
    ],
)
def test_repetitions_past_the_maximum_are_refused(tmp_path, workload_file, field, value, path):
    overrides = {field: value} | ({"repetitions": None} if field == "stop" else {})
    [problem] = problems(spec_text(**overrides), tmp_path)
    assert problem.startswith(f"{path}: ")
    assert "repetitions of a cell is more than the 1000 contio runs" in problem


def test_the_maximum_number_of_repetitions_is_accepted(tmp_path, workload_file):
    assert (
        parse_spec_text(spec_text(repetitions="1000"), "t.yaml", tmp_path).repetition_count == 1000
    )


def test_exponent_and_integral_numbers_reach_the_engine_as_integers(tmp_path, workload_file):
    spec = parse_spec_text(
        spec_text(properties="{recordcount: 1e3, operationcount: 2000.0, readproportion: 0.5}"),
        "t.yaml",
        tmp_path,
    )
    assert spec.properties_for("null") == {
        "recordcount": "1000", "operationcount": "2000", "readproportion": "0.5"
    }  # fmt: skip


def test_a_workload_path_that_is_a_directory_says_so(tmp_path):
    (tmp_path / "workloads").mkdir()
    [problem] = problems(spec_text(workloads="[./workloads]"), tmp_path)
    assert problem == (
        f"workloads[0]: workload file {str(tmp_path / 'workloads')!r} is a directory, not a "
        "text file of key=value lines"
    )


def test_a_binary_spec_file_is_refused_without_a_traceback(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_bytes(b"\xc4\xff\x00name: x\n")
    with pytest.raises(UsageError, match=r"not UTF-8 text \(byte 0xc4 at offset 0\)"):
        read_spec_file(path)


def test_the_default_spec_repeats_cells_to_a_useful_width_within_minutes():
    # Issue 12: three fixed repetitions left cells at ±5-23%. The default repeats each cell
    # until its 95% interval is within ±5% of the mean, within the few minutes `make run`
    # has (the planner's estimate, which prices the loads slower than they run here).
    spec, _ = read_default_spec()
    assert spec.stop.rule == "adaptive" and spec.stop.ci_target <= 0.05
    assert spec.stop.confidence == 0.95 and spec.stop.min_repetitions >= 3
    seconds = estimates(expand(spec), spec)
    assert sum(high for _, high in seconds.values()) <= 6 * 60
    # btree against lsm, with the spec's t-test: the comparison the report headlines.
    assert spec.target_levels()[0] == "lsm" and spec.analysis.t_test == "welch"
