"""Dropping the page cache: sync, then `3` into the control file; a refusal names the fix."""

from __future__ import annotations

import pytest

from contio.errors import UsageError
from contio.run.page_cache import drop_page_cache


def test_writes_3_to_the_control_file(tmp_path):
    # A stand-in file for /proc/sys/vm/drop_caches: writing the real one would drop the
    # caches of everyone sharing this machine during the tests.
    control = tmp_path / "drop_caches"
    drop_page_cache(control)
    assert control.read_text() == "3\n"


def test_a_refused_write_is_a_usage_error_naming_the_fix(tmp_path):
    with pytest.raises(UsageError, match=r"drop_caches: cannot write .* set drop_caches: false"):
        drop_page_cache(tmp_path)  # a directory cannot be written like the control file
