"""numerics.threads: one thread in every native pool inside the block, the previous counts after it, and a rescan of
the loaded libraries after an import."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from numerics import threads
from numerics.threads import one_thread


def _counts() -> dict[str, int]:
    return {pool["filepath"]: pool["num_threads"] for pool in threadpool_info()}


def test_one_thread_limits_every_pool_and_restores_the_counts() -> None:
    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS loaded
    before = _counts()
    assert before, "no native thread pool found"
    with one_thread():
        assert set(_counts().values()) == {1}
    assert _counts() == before


def test_the_libraries_are_scanned_again_after_an_import(monkeypatch: pytest.MonkeyPatch) -> None:
    with one_thread():
        pass
    kept = threads._controller(len(sys.modules))
    assert threads._controller(len(sys.modules)) is kept  # no import since: no rescan
    monkeypatch.setitem(sys.modules, "ibverify_test_fresh_module", types.ModuleType("ibverify_test_fresh_module"))
    assert threads._controller(len(sys.modules)) is not kept
    monkeypatch.undo()  # the same count as before, but only the latest scan is kept: scanned again
    assert threads._controller(len(sys.modules)) is not kept


def test_one_thread_asks_every_pool_for_exactly_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenBLAS reads a limit of 0 as 1 as well, so the counts alone cannot tell 0 from 1: ask the controller
    asked = []
    controller = threads._controller(len(sys.modules))
    original = type(controller).limit
    monkeypatch.setattr(type(controller), "limit",
                        lambda self, **kwargs: asked.append(kwargs) or original(self, **kwargs))
    with one_thread():
        pass
    assert asked == [{"limits": 1}]
