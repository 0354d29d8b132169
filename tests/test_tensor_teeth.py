"""Paper 002's data helper: separable_data keeps exactly the draws at distance ≥ gap from the teacher's hyperplane."""

from __future__ import annotations

import numpy as np
import pytest

from theorems.tensor_networks.classification_flow import DATA_GAP, separable_data


@pytest.mark.parametrize("gap", [DATA_GAP, 1.0])
def test_separable_data_keeps_the_draws_beyond_the_gap_labelled_by_the_teacher(gap: float) -> None:
    X, y = separable_data(np.random.default_rng(5), 40, 3, gap)
    teacher = np.random.default_rng(5).normal(size=3)  # the helper's first draw from the same stream
    teacher /= np.linalg.norm(teacher)
    margins = X @ teacher
    assert X.shape == (40, 3)
    assert np.min(np.abs(margins)) >= gap
    np.testing.assert_array_equal(y, np.sign(margins))
    # the filter binds: some kept draws lie within twice the gap (Gaussian margins are dense near the gap)
    assert np.min(np.abs(margins)) < 2 * gap
