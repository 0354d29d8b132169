"""numerics.cache: where derived artifacts go, for each way of naming the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from numerics.cache import cache_dir


@pytest.mark.parametrize("ibverify, xdg, expected", [
    ("/tmp/ib", "/tmp/xdg", Path("/tmp/ib/kernels")),  # $IBVERIFY_CACHE_DIR first
    (None, "/tmp/xdg", Path("/tmp/xdg/ibverify/kernels")),  # then $XDG_CACHE_HOME/ibverify
    (None, None, None),  # else ~/.cache/ibverify
    ("", "", None),  # empty variables count as unset
])
def test_cache_dir_by_environment(monkeypatch, tmp_path, ibverify, xdg, expected):
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in (("IBVERIFY_CACHE_DIR", ibverify), ("XDG_CACHE_HOME", xdg)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert cache_dir("kernels") == (expected or tmp_path / ".cache" / "ibverify" / "kernels")
    assert not cache_dir("kernels").exists()  # not created here
