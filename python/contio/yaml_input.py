"""What YAML input means to contio (specs, backend options, cluster inventories).

PyYAML's safe loader reads YAML 1.1, which differs from what people write in three
ways that would otherwise pass silently:

- a key given twice in one mapping keeps the last value; `read_yaml` refuses it,
  naming the key and both lines;
- `1e3` is a string (YAML 1.1 floats need a dot and a signed exponent: `1.0e+3`);
  here it is the number 1000, as in YAML 1.2 and JSON;
- `true` is a number to pydantic (`threads: [true]` would run one thread); the types
  below refuse a boolean wherever a number is expected.

A number that YAML reads as a float with an integral value (`1000.0`, `1e3`) is
passed to the engine as an integer (`number_text`): the engine's integer properties
refuse "1000.0".
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import yaml
from pydantic import BeforeValidator, Field
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


def read_yaml(text: str) -> Any:
    """Parse YAML text with `InputLoader`; `yaml.YAMLError` (or `DuplicateKeyError`)."""
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
Number = Annotated[float, BeforeValidator(_not_a_boolean)]
"""A float field that refuses true/false."""
