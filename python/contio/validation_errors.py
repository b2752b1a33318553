"""pydantic's validation errors as a user reads them: the field's spec path and what is
allowed, never pydantic's internals.

pydantic names a field inside a union by each member's validator
(`read_bps.function-after[functools.partial(<function greater_than_validator …>)]`)
and words its messages for programmers ("Input should be a valid dictionary or
instance of StopRule"). Here the union steps are dropped from the path, a union's
several errors at one field become one, and the common messages are reworded with
the value given and the allowed values (`stop.repetitions: 0 is too small: must be
greater than 0`).
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from contio.errors import SpecError

_VALIDATOR_STEP = re.compile(r"^[\w-]+\[.*\]$", re.DOTALL)
"""A location step pydantic adds for a member of a union (`function-after[…]`)."""
_TYPE_STEPS = ("int", "float", "str", "bool", "bytes", "none", "list", "dict")
"""The steps it adds for plain members (`str`): a union's when errors at one field end in
different ones (a mapping key could be `str` too)."""


def field_path(loc: tuple[int | str, ...]) -> str:
    """Dotted path of a pydantic error location: ('targets', 1) -> 'targets[1]'."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def model_at(root: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The spec model that holds the field at `loc`, walking nested models (a mapping's
    keys, like list indexes, are steps to skip)."""
    model: type[BaseModel] = root
    keyed = False
    for part in loc:
        if isinstance(part, int) or keyed:
            keyed = False
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        candidates = [field.annotation, *typing.get_args(field.annotation)]
        for arg in list(candidates):
            candidates += typing.get_args(arg)
        nested = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
        if not nested:
            return None
        model = nested[0]
        keyed = dict in (typing.get_origin(field.annotation), field.annotation)
    return model


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


def _mapping(root: type[BaseModel], loc: tuple[int | str, ...], value: Any) -> str:
    model = model_at(root, loc)
    keys = f" (keys: {', '.join(model.model_fields)})" if model else ""
    return f"must be a mapping of keys to values{keys}, not {_shown(value)}"


def _message(error: dict[str, Any], root: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """The reworded message of one error (pydantic's own, without its prefix, else)."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "extra_forbidden":
        model = model_at(root, loc[:-1])
        return f"unknown key; allowed keys here: {', '.join(model.model_fields) if model else '(none)'}"
    if kind == "literal_error":
        return f"{_shown(value)} is not allowed; allowed: {ctx['expected'].replace(chr(39), '')}"
    simple = {
        "missing": "required, but missing",
        "greater_than": f"{_shown(value)} is too small: must be greater than {ctx.get('gt')}",
        "greater_than_equal": f"{_shown(value)} is too small: must be at least {ctx.get('ge')}",
        "less_than": f"{_shown(value)} is too large: must be less than {ctx.get('lt')}",
        "less_than_equal": f"{_shown(value)} is too large: must be at most {ctx.get('le')}",
        "int_parsing": f"{_shown(value)} is not an integer (a whole number such as 4)",
        "int_type": f"{_shown(value)} is not an integer (a whole number such as 4)",
        "int_parsing_size": f"{_shown(value)} is too large a number",
        "int_from_float": f"{_shown(value)} is not a whole number",
        "float_parsing": f"{_shown(value)} is not a number",
        "float_type": f"{_shown(value)} is not a number",
        "finite_number": f"{_shown(value)} is not a finite number",
        "path_type": f"{_shown(value)} is not a path: give it as text (/srv/data)",
        "ip_v4_network": f"{_shown(value)} is not an IPv4 network (such as 10.213.0.0/24)",
        "list_type": f"must be a list ([a, b]), not {_shown(value)}",
        "string_type": f"{_shown(value)} is not text: give a string",
        "bool_type": f"{_shown(value)} is not true or false",
        "bool_parsing": f"{_shown(value)} is not true or false",
        "string_pattern_mismatch": (
            f"{_shown(value)} is not allowed: it must match {ctx.get('pattern')}"
        ),
        "string_too_long": f"is too long: at most {ctx.get('max_length')} characters",
        "string_too_short": f"is too short: at least {ctx.get('min_length')} characters",
        "too_short": (
            f"needs at least {_entries(ctx.get('min_length', 1))}, has {ctx.get('actual_length')}"
        ),
        "too_long": f"has {ctx.get('actual_length')} entries; at most {ctx.get('max_length')}",
    }
    if kind in simple:
        return simple[kind]
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return _mapping(root, loc, value)
    return str(error["msg"]).removeprefix("Value error, ")


def reworded(error: Any, root: type[BaseModel]) -> str:
    """One pydantic error's message in contio's words, without its field path (for the
    callers that name the field themselves: backend options, cluster inventories)."""
    return _message(error, root, tuple(error["loc"]))


def _without_union_steps(loc: tuple[int | str, ...], unions: set[tuple[Any, ...]]) -> tuple:
    kept = tuple(p for p in loc if isinstance(p, int) or not _VALIDATOR_STEP.match(p))
    if kept and kept[-1] in _TYPE_STEPS and kept[:-1] in unions:
        kept = kept[:-1]
    return kept


def _union_fields(errors: list[Any]) -> set[tuple[Any, ...]]:
    """Locations at which errors end in two or more different plain member steps."""
    endings: dict[tuple[Any, ...], set[str]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if (loc and loc[-1] in _TYPE_STEPS) or (loc and _VALIDATOR_STEP.match(str(loc[-1]))):
            endings.setdefault(loc[:-1], set()).add(str(loc[-1]))
    return {loc for loc, ends in endings.items() if len(ends) > 1}


def problem_of(
    error: Any,
    root: type[BaseModel],
    prefix: tuple[int | str, ...] = (),
    unions: set[tuple[Any, ...]] | None = None,
) -> SpecError:
    """One pydantic error as a `SpecError` naming its path and what is allowed."""
    loc = _without_union_steps(tuple(error["loc"]), unions or set())
    return SpecError(field_path(prefix + loc), _message(error, root, loc))


def problems_of(
    errors: Iterable[Any], root: type[BaseModel], prefix: tuple[int | str, ...] = ()
) -> list[SpecError]:
    """Every error as a `SpecError`, one per field: the errors of a union's members at one
    field are joined (`… or …`)."""
    errors = list(errors)
    unions = _union_fields(errors)
    by_path: dict[str, list[str]] = {}
    for error in errors:
        problem = problem_of(error, root, prefix, unions)
        messages = by_path.setdefault(problem.path, [])
        text = str(problem).removeprefix(f"{problem.path}: ") if problem.path else str(problem)
        if text not in messages:
            messages.append(text)
    return [SpecError(path, " or ".join(messages)) for path, messages in by_path.items()]
