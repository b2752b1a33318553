"""YAML input read as people mean it: a key given twice is refused, `1e3` is a number,
an integral number reaches the engine without `.0`, and a boolean is never a number."""

from __future__ import annotations

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from contio.yaml_input import (
    DuplicateKeyError,
    InputShapeError,
    Integer,
    Number,
    PositiveInteger,
    number_text,
    read_yaml,
)


def test_a_key_given_twice_is_refused_naming_it_and_both_lines():
    text = "name: a\nfactors:\n  threads: [1]\n  target: [null]\n  threads: [4]\n"
    with pytest.raises(DuplicateKeyError) as info:
        read_yaml(text)
    assert str(info.value).startswith(
        "line 5: key 'threads' is given twice in one mapping (first on line 3)"
    )
    assert isinstance(info.value, yaml.YAMLError)  # callers that catch YAML errors see it


def test_a_merge_key_override_is_not_a_duplicate():
    data = read_yaml("base: &b {threads: 1, target: null}\ncell: {<<: *b, threads: 4}\n")
    assert data["cell"] == {"threads": 4, "target": None}


@pytest.mark.parametrize(
    ("text", "value"),
    [("1e3", 1000.0), ("2.5E2", 250.0), ("1e-3", 0.001), ("-4e2", -400.0), ("1.0e+3", 1000.0)],
)
def test_exponent_numbers_are_numbers(text, value):
    assert read_yaml(f"a: {text}") == {"a": value}
    assert yaml.safe_load("a: 1e3") == {"a": "1e3"}  # the global loader is left as it was


@pytest.mark.parametrize(
    ("value", "text"), [(1000.0, "1000"), (0.5, "0.5"), (7, "7"), (float("inf"), "inf")]
)
def test_integral_numbers_reach_the_engine_as_integers(value, text):
    assert number_text(value) == text


class Numbers(BaseModel):
    count: Integer = 0
    threads: list[PositiveInteger] = [1]
    seconds: Number = 0.0


@pytest.mark.parametrize("field", ["count", "threads", "seconds"])
@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_is_not_a_number(field, value):
    given = [value] if field == "threads" else value
    with pytest.raises(ValidationError) as info:
        Numbers.model_validate({field: given})
    word = "true" if value else "false"
    assert info.value.errors()[0]["msg"] == f"{word} is a boolean, not a number"


def test_numbers_still_validate():
    assert Numbers.model_validate({"count": 3, "threads": [2, 1e3], "seconds": 2}) == Numbers(
        count=3, threads=[2, 1000], seconds=2.0
    )


@pytest.mark.parametrize("text", ["a: !!map foo\n", "? [a, b]\n: 1\n", "a: [1\n"])
def test_other_bad_yaml_is_still_a_yaml_error(text):
    with pytest.raises(yaml.YAMLError):
        read_yaml(text)


def test_nesting_deeper_than_a_spec_needs_is_refused_naming_the_line():
    # It used to end in a RecursionError traceback inside PyYAML's composer.
    text = "name: a\ndescription: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(InputShapeError) as info:
        read_yaml(text)
    assert str(info.value) == "line 2: nested more than 64 levels deep; a spec nests a few"
    assert isinstance(info.value, yaml.YAMLError)


def test_aliases_that_expand_to_billions_of_values_are_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for name, previous in zip("bcdefghi", "abcdefgh", strict=True):
        lines.append(f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]")
    with pytest.raises(InputShapeError) as info:
        read_yaml("\n".join(lines) + "\n")
    assert "its aliases expand to more than 200000 values" in str(info.value)


def test_a_spec_s_own_nesting_and_aliases_are_read():
    data = read_yaml("base: &b {threads: [1, 2]}\ncells: [{<<: *b}, *b, *b]\n")
    assert data["cells"][1] == {"threads": [1, 2]}
