"""The base of every model a user's input is read into (specs, backend and cluster
options): unknown keys are refused and values are immutable, so every error names its
field path (worded by `contio.validation_errors`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SpecModel(BaseModel):
    """Base of every spec model: strict keys, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
