"""Paper 002's helpers and criteria, each condition of a decision refusing on its own (what no claim's instance
exercises): separable_data's gap, the single-point limit's signs and reference, Assumption 1's integer test, the
DFT's realness and evenness, the loss bounds' windows, (76)'s direction spread and (75)'s two identities."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy

from numerics.tensor_network import LinearTensorNetwork, diagonal_tensor
from theorems.tensor_networks import classification_single_point as single
from theorems.tensor_networks import regression_two_layer as two_layer
from theorems.tensor_networks.classification_flow import DATA_GAP, log_levels, separable_data
from theorems.tensor_networks.common import OMEGA, Decomposition
from theorems.tensor_networks.encodings import dft_real_even, integer_decomposition
from theorems.tensor_networks.regression_fully_connected import loss_bound_holds


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


# -- App. E.1's single-point limit ----------------------------------------------------------------------------
LEVELS = log_levels(1.0, single.Q_MAX, 4)
TOP_TIED = np.array([2.0, 2.0, 1.0])  # two tied top singular values


def single_point_rhos(second_sign: float) -> np.ndarray:
    """ρ(Q) = (1, ±Q^(−1/2), Q^(−1/2)): on the top singular values, its ℓ1 margin gap decays like Q^(−1/2)."""
    fading = LEVELS ** -0.5
    return np.stack([np.ones_like(LEVELS), second_sign * fading, fading], axis=1)


def single_point_holds(rhos: np.ndarray) -> bool | None:
    return single.single_point_limit(LEVELS, rhos, 0.0, TOP_TIED, 1.0, "l1", single.GAP_TOLERANCE, True).decision.holds


def test_single_point_limit_refuses_a_wrong_sign_on_a_top_singular_value() -> None:
    """ρ_2 = −Q^(−1/2): the gap still decays (like 2.5 Q^(−1/2)), but a top coordinate has the sign of −y."""
    assert single_point_holds(single_point_rhos(1.0))
    assert single_point_holds(single_point_rhos(-1.0)) is False


@pytest.mark.parametrize("change", ["status", "solution"])
def test_single_point_limit_refuses_a_reference_it_cannot_certify(change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The max-margin reference uncertified, or certified with a margin 1e-6 off ‖s‖_*: refused either way."""
    real = single.max_margin

    def altered(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the solver's signature
        reference = real(*args, **kwargs)
        assert reference.status == "certified"
        if change == "status":
            return dataclasses.replace(reference, status="optimal")
        return dataclasses.replace(reference, solution=reference.solution * (1 + 1e-6))

    monkeypatch.setattr(single, "max_margin", altered)
    assert single_point_holds(single_point_rhos(1.0)) is False


# -- Assumption 1 in integer arithmetic ------------------------------------------------------------------------
def test_integer_decomposition_refuses_columns_that_are_not_orthonormal() -> None:
    """S = I with a zero fourth row and U_l = [I | e_1]: M is reproduced and rank S = 3, but m = 4 columns of
    R³ cannot be orthonormal (U_lᵀU_l ≠ I_4)."""
    S = np.vstack([np.eye(3, dtype=int), np.zeros((1, 3), dtype=int)])
    U = np.hstack([np.eye(3, dtype=int), np.eye(3, dtype=int)[:, :1]])
    model = diagonal_tensor(3, 2)
    assert integer_decomposition(model, np.eye(3, dtype=int), (np.eye(3, dtype=int),) * 2).decision.holds is True
    assert integer_decomposition(model, S, (U, U)).decision.holds is False


def test_integer_decomposition_refuses_a_rank_deficient_s() -> None:
    """M(e_1) = M(e_2) = e_1 ⊗ e_1 is reproduced by S = (1 1), U_l = e_1 (orthonormal), but rank S = 1 < d = 2."""
    basis = np.zeros((2, 2, 2), dtype=int)
    basis[:, 0, 0] = 1
    e1 = np.array([[1], [0]])
    model = LinearTensorNetwork(basis)
    assert integer_decomposition(model, np.array([[1, 1]]), (e1, e1)).decision.holds is False


# -- App. A.4: F x real and even -------------------------------------------------------------------------------
def test_dft_real_even_refuses_each_property_alone() -> None:
    """d = 4, ψ = −i: x = ψ·(even real x) gives F x even, not real; x = (a_0, a_1 + ψb, a_2, a_1 − ψb) (conjugate
    symmetric, not even) gives F x real, not even."""
    a0, a1, a2, b = sympy.symbols("a0 a1 a2 b", real=True)
    even = (a0, a1, a2, a1)
    assert dft_real_even(even, 4).decision.holds
    imaginary = dft_real_even(tuple(OMEGA * v for v in even), 4).decision
    assert not imaginary.holds and imaginary.detail == "F x real: False, even: True"
    hermitian = dft_real_even((a0, a1 + OMEGA * b, a2, a1 - OMEGA * b), 4).decision
    assert not hermitian.holds and hermitian.detail == "F x real: True, even: False"


# -- the loss bounds read checkpoints while the bound's exponent is below 50 ------------------------------------
def plateau_run(**rates: float) -> dict:
    """A run whose loss meets the bound with equality (exponent t) until t = 50, then stays at e^(−52) (above
    1e-25 L(0)): the checkpoints past exponent 50 are not read, so the bound holds."""
    t = np.array([0.0, 10.0, 20.0, 40.0, 49.0, 60.0, 70.0])
    return {"t": t, "losses": np.where(t < 50, np.exp(-t), np.exp(-52.0)), **rates}


def test_two_layer_loss_bound_reads_only_exponents_below_50() -> None:
    run = plateau_run(alpha=1.0, lam=1.0, s_squared=0.5)  # (73)'s rate 2α²λ‖s‖² = 1
    assert two_layer.loss_bound_73([run], 2.0).decision.holds


def test_fully_connected_loss_bound_reads_only_exponents_below_50() -> None:
    run = plateau_run(alpha=1.0, depth=2, lam=1.0, sigma_X=np.sqrt(0.5))  # 2α^(2L−2)λ^(L−1)σ_min(X)² = 1
    assert loss_bound_holds([run], 2.0).decision.holds


# -- (76): the spread of the limits over the directions ---------------------------------------------------------
def test_forgets_direction_refuses_a_spread_that_rises_once() -> None:
    """Spreads ∝ α^0.8 with one rise at α = 1e-3 (above the fitted range α ≤ 1e-5): sign, growth of |ν*| and the
    fitted exponent pass; only the monotone decrease fails."""
    alphas = 10.0 ** -np.arange(1, 8)
    nus = np.arange(1.0, 8.0)

    def limits(spreads: np.ndarray) -> list[list[np.ndarray]]:
        return [[np.zeros(2), np.array([spread, 0.0])] for spread in spreads]

    steady = alphas**0.8
    bumped = steady.copy()
    bumped[2] = 2 * steady[1]
    args = (nus, 1.0, np.array([2.0, 1.0]), 0.1)
    assert two_layer.forgets_direction(alphas, nus, limits(steady), *args[1:]).decision.holds
    decision = two_layer.forgets_direction(alphas, nus, limits(bumped), *args[1:]).decision
    assert not decision.holds and decision.figures["spread_rate"] >= decision.figures["min_spread_rate"]
    # one singular value: nothing to forget against, the predicted rate is 1 (share·1 required)
    single_value = two_layer.forgets_direction(alphas, nus, limits(steady), 1.0, np.array([3.0]), 0.1).decision
    assert single_value.figures["predicted_rate"] == 1.0 and single_value.figures["min_spread_rate"] == 0.5
    # the fitted exponent may equal the required one: share chosen so that share·(1 − s_2/s_1) is that exponent
    rate = single_value.figures["spread_rate"]
    assert two_layer.forgets_direction(alphas, nus, limits(steady), 1.0, np.array([3.0]), 0.1, rate).decision.holds


# -- (75): each of the two identities must be proved -------------------------------------------------------------
@pytest.mark.parametrize("undecided", [0, 1])
def test_cosh_sinh_solves_is_undecided_unless_both_identities_are_proved(undecided: int,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Either identity left unproved (and not refuted) leaves the criterion undecided, never certified."""
    assert two_layer.cosh_sinh_solves(1).decision.holds
    real, calls = two_layer.is_identically_zero, []

    def unproved(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - the checker's signature
        result = real(*args, **kwargs)
        calls.append(result)
        return dataclasses.replace(result, proved=False) if len(calls) - 1 == undecided else result

    monkeypatch.setattr(two_layer, "is_identically_zero", unproved)
    assert two_layer.cosh_sinh_solves(1).decision.holds is None


def test_a_decomposition_has_as_many_terms_as_s_has_rows() -> None:
    """m counts the rank-one terms, the rows of S (m × d), also when S is not square."""
    S = np.arange(6.0).reshape(3, 2)
    U = (np.ones((4, 3)), np.ones((5, 3)))
    decomposition = Decomposition(S, U)
    assert decomposition.m == 3 and decomposition.degree == 2
    assert decomposition.basis().shape == (2, 4, 5)


def test_random_initial_layers_have_the_sizes_of_the_tensor_modes() -> None:
    """v̄_l lives in C^(k_l), k_l the rows of U_l (k_l × m), also when U_l is not square."""
    from theorems.tensor_networks.classification_flow import decomposable_init

    rng = np.random.default_rng(0)
    U = tuple(np.linalg.qr(rng.normal(size=(k, k)))[0][:, :2] for k in (3, 4))
    parts = decomposable_init(Decomposition(rng.normal(size=(2, 2)), U), rng)
    assert [part.shape for part in parts] == [(3,), (4,)]


def test_shifts_act_along_the_last_axis_only() -> None:
    from theorems.tensor_networks.common import shift_left, shift_right

    rows = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(shift_left(rows), [[1.0, 2.0, 0.0], [4.0, 5.0, 3.0]])
    np.testing.assert_array_equal(shift_right(rows), [[2.0, 0.0, 1.0], [5.0, 3.0, 4.0]])


def test_a_decomposition_with_a_complex_data_tensor_has_no_real_network() -> None:
    """M(x) for S = U_1 = I and U_2 = diag(1, 1 + 1e-6 i) has imaginary entries 1e-6: refused at the default 1e-12,
    accepted when the caller allows 1e-5; the diagonal decomposition's tensor is real."""
    skewed = Decomposition(np.eye(2), (np.eye(2), np.diag([1.0, 1.0 + 1e-6j])))
    with pytest.raises(ValueError, match="complex data tensor"):
        skewed.network()
    assert skewed.network(atol=1e-5).basis.shape == (2, 2, 2)
    real = Decomposition(np.eye(2), (np.eye(2), np.eye(2))).network()
    np.testing.assert_array_equal(real.basis[1], np.diag([0.0, 1.0]))


def test_decomposition_defect_measures_each_part_of_assumption_1() -> None:
    """Exact decompositions have no defect; U with a zero column (m = 3 > k = 2) is off orthonormality by 1 and
    breaks m ≤ k_l by 1; one coordinate (m = d = 1) in a 2 × 2 tensor meets every size condition."""
    from theorems.tensor_networks.encodings import decomposition_defect

    exact = decomposition_defect(diagonal_tensor(2, 2), Decomposition(np.eye(2), (np.eye(2), np.eye(2))))
    assert exact == {"tensor": 0.0, "orthonormal": 0.0, "rank_deficit": 0.0, "size_violation": 0.0}
    padded = np.eye(2, 3)
    tall = decomposition_defect(diagonal_tensor(2, 2), Decomposition(np.eye(3, 2), (padded, padded)))
    assert tall == {"tensor": 0.0, "orthonormal": 1.0, "rank_deficit": 0.0, "size_violation": 1.0}
    corner = LinearTensorNetwork(np.array([[[1.0, 0.0], [0.0, 0.0]]]))  # M(x) = x e_1 ⊗ e_1
    e1 = np.array([[1.0], [0.0]])
    assert decomposition_defect(corner, Decomposition(np.eye(1), (e1, e1)))["size_violation"] == 0.0
    deficient = decomposition_defect(diagonal_tensor(2, 2), Decomposition(np.diag([1.0, 0.0]), (np.eye(2), np.eye(2))))
    assert deficient["rank_deficit"] == 1.0


def test_forms_differ_needs_a_difference_that_excludes_zero() -> None:
    """With φ linear the two forms are the same exact integer (the ball [0 ± 0]): they do not differ; with the
    sigmoid on the diagonal network they do (φ(0) = ½ on the structural zeros), here by 0.0382 ± 1.5e-8."""
    from numerics.networks import diagonal
    from theorems.tensor_networks.encodings import forms_differ

    model, network = diagonal_tensor(3, 3), diagonal(3, 3, "linear")
    theta, x = np.array([-2, 2, 3, 1, -3, 1, 2, -2, -3]), np.array([2, 1, 2])
    assert not forms_differ(model, network, theta, x, "linear")
    differ = forms_differ(model, network, theta, x, "sigmoid")
    assert differ and differ.decision.figures["tensor_form"] - differ.decision.figures["network"] == pytest.approx(
        0.0382020, abs=1e-6)
