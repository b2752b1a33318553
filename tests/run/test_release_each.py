"""Releasing several resources: one failure does not keep the others held."""

from __future__ import annotations

import pytest

from contio.run.release_each import release_each


def test_every_action_runs_and_the_first_failure_is_raised_after_all():
    called = []

    def fails(name: str) -> None:
        called.append(name)
        raise RuntimeError(name)

    actions = [lambda: fails("a"), lambda: called.append("b"), lambda: fails("c")]
    with pytest.raises(RuntimeError, match=r"^a$"):
        release_each(actions)
    assert called == ["a", "b", "c"]
    release_each([])  # nothing to release: nothing raised
