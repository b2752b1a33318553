"""Every pydantic error reads as a user's message (issue 29, point E): the field's spec
path and what is wrong with the value, never pydantic's internals. One message showed
`read_bps.function-after[functools.partial(<function greater_than_validator at 0x…>`.

Each field of every spec model, at any depth, is given values of the wrong kind and
out of range; every problem must name a path of the spec and say no more than a user
can act on. No input may raise anything but `InvalidSpecError`."""

from __future__ import annotations

import copy
import itertools
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from contio.errors import InvalidSpecError
from contio.experiment.load import validate_spec
from contio.experiment.spec import ExperimentSpec

BASE: dict[str, Any] = {"name": "x", "factors": {"workload": ["workloadc"]}}
BAD_VALUES = [-1, 0, 1.5, "x", True, None, [1], {"a": 1}, 10**40]
INTERNALS = re.compile(r"function-|functools|0x[0-9a-f]{6,}|<function|instance of|Input should")


def _inner(annotation: Any) -> Any:
    """The annotation without Optional and Annotated."""
    while True:
        origin = typing.get_origin(annotation)
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if origin is typing.Annotated or (
            origin in (typing.Union, types.UnionType) and len(args) == 1
        ):
            annotation = args[0]
        else:
            return annotation


def field_paths(model: type[BaseModel], prefix: tuple = ()) -> Iterator[tuple]:
    """The location of every field of `model`, nested models' fields included (a
    mapping's key is `k`, a list's entry 0)."""
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        yield path
        annotation = _inner(info.annotation)
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        step: Any = None
        if origin is dict:
            step, annotation = "k", _inner(args[1])
        elif origin is list:
            step, annotation = 0, _inner(args[0])
        if step is not None:
            yield (*path, step)
            origin = typing.get_origin(annotation)
            if origin is list:  # mixes: a mapping of lists of models
                path, step, annotation = (*path, step), 0, _inner(typing.get_args(annotation)[0])
                yield (*path, step)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from field_paths(annotation, path if step is None else (*path, step))


def with_value(path: tuple, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    node: Any = data
    for step, following in itertools.pairwise(path):
        empty: Any = [{}] if isinstance(following, int) else {}
        if isinstance(node, list):
            node[step] = node[step] if isinstance(node[step], type(empty)) else empty
        else:
            if not isinstance(node.get(step), type(empty)):
                node[step] = empty
        node = node[step]
    if isinstance(node, list):
        node[path[-1]] = value
    else:
        node[path[-1]] = value
    return data


PATHS = sorted(set(field_paths(ExperimentSpec)), key=str)


def test_the_walk_reaches_the_fields_the_issue_named():
    assert ("io_controls", "k", "groups", 0, "read_bps") in PATHS
    assert ("stop", "min_repetitions") in PATHS and ("mixes", "k", 0, "threads") in PATHS


@pytest.mark.parametrize("path", PATHS, ids=lambda p: ".".join(map(str, p)))
def test_every_bad_value_of_every_field_reads_as_a_user_s_message(tmp_path: Path, path):
    for value in BAD_VALUES:
        try:
            validate_spec(with_value(path, value), "x.yaml", tmp_path)
        except InvalidSpecError as exc:
            for problem in exc.problems:
                text = str(problem)
                assert not INTERNALS.search(text), f"{path}={value!r}: {text}"
                assert re.match(r"^[\w.\-\[\]]*(: |$)", text), f"{path}={value!r}: {text}"


def test_a_bandwidth_of_the_wrong_kind_names_its_field_once(tmp_path):
    data = with_value(("io_controls", "l", "groups", 0, "read_bps"), -5)
    with pytest.raises(InvalidSpecError) as info:
        validate_spec(data, "x.yaml", tmp_path)
    assert [str(p) for p in info.value.problems] == [
        (
            "io_controls.l.groups[0].read_bps: -5 is neither bytes/s (a positive integer) nor a "
            "percent of the device's bandwidth ('25%')"
        )
    ]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("stop", "repetitions"), 0, "stop.repetitions: 0 is too small: must be greater than 0"),
        (("stop",), 3, "stop: must be a mapping of keys to values (keys: rule, operations"),
        (("threads",), "x", "threads: must be a list ([a, b]), not 'x'"),
        (("properties", "a"), [1], "properties.a: must be a single value (text, a number"),
        (("order", "seed"), 1.5, "order.seed: 1.5 is not a whole number"),
    ],
)
def test_common_messages_say_the_value_and_what_is_allowed(tmp_path, path, value, message):
    with pytest.raises(InvalidSpecError) as info:
        validate_spec(with_value(path, value), "x.yaml", tmp_path)
    assert any(str(p).startswith(message) for p in info.value.problems), info.value.problems
