"""Decisions of a measured number against a tolerance, by one convention for every claim.

A measured value *meets* a limit when it is at most (or at least) the limit itself: the limit is included, so a
figure equal to its tolerance passes, and NaN never meets any limit (a computation that broke down is not evidence).
The strict forms are for the few statements that exclude their limit. Arrays are compared elementwise and give a
boolean array; a scalar gives a Python bool.

:func:`relative_scale` is the scale a relative tolerance is taken against (the largest magnitude, at least 1: absolute
near 0), one definition for the engines' ``tol · max(1, |x|)``.

Every claim compares its figures through these four functions instead of writing ``<=`` against a tolerance inline,
so that the convention at the edge is decided, and tested at the edge, in one place (tests/test_tolerances.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["above", "at_least", "at_most", "below", "relative_scale"]


def _decided(result: Any) -> Any:
    return bool(result) if np.ndim(result) == 0 else np.asarray(result, dtype=bool)


def at_most(value: Any, limit: Any) -> Any:
    """value ≤ limit (the limit included; NaN is False)."""
    return _decided(np.less_equal(value, limit))


def at_least(value: Any, limit: Any) -> Any:
    """value ≥ limit (the limit included; NaN is False)."""
    return _decided(np.greater_equal(value, limit))


def below(value: Any, limit: Any) -> Any:
    """value < limit (strict; NaN is False)."""
    return _decided(np.less(value, limit))


def above(value: Any, limit: Any) -> Any:
    """value > limit (strict; NaN is False)."""
    return _decided(np.greater(value, limit))


def relative_scale(*values: Any) -> float:
    """max(1, |v| for every entry of every value): a relative tolerance times this is absolute for values below 1
    (empty arrays add nothing)."""
    return max([1.0, *(float(np.max(np.abs(value))) for value in values if np.size(value))])
