"""JSON documents with a `schema` version that contio writes and reads back (profiles,
calibrations, the engine's results): read, version checked, validated, and every
failure said in one line naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from contio.errors import ContioError
from contio.input_files import InputFileProblem, read_input_text
from contio.validation_errors import reworded

Document = TypeVar("Document", bound=BaseModel)


def first_problem(exc: ValidationError) -> str:
    """`field.path: message` of a validation's first error (the one a user fixes first)."""
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {reworded(first, BaseModel)}"


def read_versioned(
    path: Path, model: type[Document], schema: str, error: type[ContioError], remedy: str
) -> Document:
    """`path` as `model`, its `schema` field equal to `schema`; else `error` naming the
    file and the problem (`remedy` says what to do about another version)."""
    what = model.__name__.lower()
    try:
        document = json.loads(read_input_text(path, f"a {what} file (JSON)"))
    except InputFileProblem as exc:
        raise error(f"cannot read it: {exc}") from None
    except ValueError as exc:
        raise error(f"{path}: not JSON ({exc})") from exc
    if not isinstance(document, dict):
        raise error(f"{path}: a {what} is a JSON object")
    found = document.get("schema")
    if found != schema:
        raise error(
            f"{path}: schema: {found!r} is not a {what} this contio reads "
            f"(allowed: {schema!r}); {remedy}"
        )
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise error(f"{path}: {first_problem(exc)}") from exc
