"""What YAML input means to contio (specs, backend options, cluster inventories).

PyYAML's safe loader reads YAML 1.1, which differs from what people write in three
ways that would otherwise pass silently:

- a key given twice in one mapping keeps the last value; `read_yaml` refuses it,
  naming the key and both lines;
- `1e3` is a string (YAML 1.1 floats need a dot and a signed exponent: `1.0e+3`);
  here it is the number 1000, as in YAML 1.2 and JSON;
- `true` is a number to pydantic (`threads: [true]` would run one thread); the types
  below refuse a boolean wherever a number is expected.

And two shapes no spec needs are refused before the document is built
(`InputShapeError`): nesting deeper than `MAX_NESTING` (PyYAML's composer and the
models recurse, and would end in a RecursionError), and aliases that expand to more
than `MAX_EXPANDED_VALUES` values (a few lines of anchors can stand for billions).

A number that YAML reads as a float with an integral value (`1000.0`, `1e3`) is
passed to the engine as an integer (`number_text`): the engine's integer properties
refuse "1000.0".
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

import yaml
from pydantic import BeforeValidator, Field, PlainValidator
from pydantic_core import PydanticCustomError


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping names the same key twice. The message names the key and both lines."""

    def __init__(self, key: Any, first: yaml.Mark, again: yaml.Mark):
        super().__init__(None, None, f"key {key!r} appears twice", again)
        self.key = key
        self.first_line = first.line + 1
        self.line = again.line + 1

    def __str__(self) -> str:
        return (
            f"line {self.line}: key {self.key!r} is given twice in one mapping (first on "
            f"line {self.first_line}); YAML would silently keep the last value, keep one"
        )


class InputLoader(yaml.SafeLoader):
    """The safe loader with duplicate keys refused and YAML 1.2 exponent numbers."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        pairs = node.value if isinstance(node, yaml.MappingNode) else []  # else: super refuses
        for key_node, _ in pairs:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base` then a key of the base is an override, not a duplicate
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:
                continue  # an unhashable key: the safe loader refuses it with its own message
            if first is not key_node:
                raise DuplicateKeyError(key, first.start_mark, key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


# YAML 1.2 (and JSON) numbers with an exponent but no dot or no exponent sign: 1e3, 2.5E6.
InputLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


MAX_NESTING = 64
"""Deepest nesting of mappings and lists accepted (a spec nests about six levels)."""
MAX_EXPANDED_VALUES = 200_000
"""Most values a document may stand for once its aliases are expanded."""


class InputShapeError(yaml.YAMLError):
    """A document nests too deeply or its aliases expand too far; names the line."""

    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(f"line {line}: {message}")


def _check_shape(text: str) -> None:
    """Refuse too deep a nesting or too large an alias expansion, from the parser's
    events (the parser keeps its own stack: it does not recurse)."""
    frames: list[list[Any]] = []  # per open collection: [values so far, its anchor]
    sizes: dict[str, int] = {}  # per anchor: how many values it stands for
    for event in yaml.parse(text, Loader=InputLoader):
        line = event.start_mark.line + 1 if event.start_mark is not None else 0
        if isinstance(event, yaml.CollectionStartEvent):
            if len(frames) >= MAX_NESTING:
                raise InputShapeError(
                    line, f"nested more than {MAX_NESTING} levels deep; a spec nests a few"
                )
            frames.append([0, event.anchor])
            continue
        if isinstance(event, yaml.CollectionEndEvent):
            count, anchor = frames.pop()
            size = count + 1
        elif isinstance(event, yaml.AliasEvent):
            size, anchor = sizes.get(event.anchor or "", 1), None
        elif isinstance(event, yaml.ScalarEvent):
            size, anchor = 1, event.anchor
        else:
            continue
        if anchor is not None:
            sizes[anchor] = size
        if frames:
            frames[-1][0] += size
            if frames[-1][0] > MAX_EXPANDED_VALUES:
                raise InputShapeError(
                    line,
                    f"its aliases expand to more than {MAX_EXPANDED_VALUES} values; "
                    "a spec holds a few hundred",
                )


def read_yaml(text: str) -> Any:
    """Parse YAML text with `InputLoader`; `yaml.YAMLError` (`DuplicateKeyError`,
    `InputShapeError`)."""
    _check_shape(text)
    return yaml.load(text, Loader=InputLoader)  # a SafeLoader subclass: safe


def number_text(value: float) -> str:
    """A number as the engine reads it: an integral float without its `.0`."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _not_a_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError(
            "bool_for_number",
            "{value} is a boolean, not a number",
            {"value": "true" if value else "false"},
        )
    return value


Integer = Annotated[int, BeforeValidator(_not_a_boolean)]
"""An integer field that refuses true/false (an integral float such as 1e3 is accepted)."""
PositiveInteger = Annotated[int, BeforeValidator(_not_a_boolean), Field(gt=0)]
Number = Annotated[float, BeforeValidator(_not_a_boolean), Field(allow_inf_nan=False)]
"""A float field that refuses true/false, and `.inf`/`.nan` (YAML's infinity and
not-a-number, which pydantic would take: `warmup_seconds: .inf` ended in a traceback)."""


def _scalar(value: Any) -> str | int | float | bool:
    if isinstance(value, float) and not math.isfinite(value):
        raise PydanticCustomError(
            "finite_number", "{value} is not a finite number", {"value": str(value)}
        )
    if isinstance(value, (str, int, float)):  # bool is an int
        return value
    given = "nothing (null)" if value is None else f"a {_yaml_kind(value)}"
    raise PydanticCustomError(
        "not_a_scalar",
        "must be a single value (text, a number or true/false), not {given}",
        {"given": given},
    )


def _scalar_or_null(value: Any) -> str | int | float | bool | None:
    return None if value is None else _scalar(value)


def _yaml_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


Scalar = Annotated[str | int | float | bool, PlainValidator(_scalar)]
"""One YAML value: text, a number or a boolean (a property's value). Validated as one
type, so an error names the field once instead of once per member of the union."""
ScalarOrNull = Annotated[str | int | float | bool | None, PlainValidator(_scalar_or_null)]
