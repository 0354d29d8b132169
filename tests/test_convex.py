"""Convex references: closed-form instances checked exactly, failure modes, and random certified instances."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as Q
from sympy import sqrt

from numerics import convex
from numerics.convex import ConvexProblem, max_margin, min_norm_interpolation
from numerics.exact import to_exact


def exact_list(values) -> list:
    return [sympy.nsimplify(v) if isinstance(v, float) else v for v in values]


def assert_exact(actual, expected) -> None:
    """Exact equality of sympy numbers (no tolerance)."""
    actual = list(np.asarray(actual, dtype=object).ravel())
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert sympy.simplify(a - e) == 0, f"{actual} != {expected}"


# -- hard-margin SVM (ℓ2, no intercept) -----------------------------------------------------------------
def test_svm_two_orthogonal_points():
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0]))
    assert ref.status == "certified", ref.message
    cert = ref.certificate
    assert_exact(cert.solution, [1, 1])
    assert_exact(cert.duals, [1, 1])
    assert_exact([cert.margin], [1 / sqrt(2)])
    assert_exact(cert.direction, [1 / sqrt(2), 1 / sqrt(2)])
    assert ref.active == (0, 1) and ref.support == (0, 1)
    assert cert.gap == 0 and cert.verified
    assert ref.margin == pytest.approx(2**-0.5, rel=1e-15)


PAPER_DS2 = [[0.5, 0.4], [0.5, -0.2], [0.8, 0.1], [0.7, -0.5]]


@pytest.mark.parametrize("exact_input", [False, True], ids=["float", "rational"])
def test_svm_dataset_with_known_duals(exact_input):
    """u = e1, γ = 1/2, support {1, 2}, α = (4/3, 8/3, 0, 0), exactly (floats are binary rationals)."""
    X = to_exact([exact_list(row) for row in PAPER_DS2]) if exact_input else np.array(PAPER_DS2)
    ref = max_margin(X, np.ones(4))
    assert ref.status == "certified", ref.message
    cert = ref.certificate
    assert_exact(cert.solution, [2, 0])
    assert_exact(cert.direction, [1, 0])
    assert cert.margin == Q(1, 2)
    assert ref.active == (0, 1)
    assert_exact(cert.duals, [Q(4, 3), Q(8, 3), 0, 0])
    assert_exact(cert.slacks[2:], [Q(3, 5) if exact_input else sympy.Rational(2 * 0.8) - 1,
                                   Q(2, 5) if exact_input else sympy.Rational(2 * 0.7) - 1])
    assert cert.objective == cert.dual_objective == 2


def test_svm_support_vector_with_zero_dual():
    """Both points are support vectors and span R², yet α = (4, 0)."""
    ref = max_margin(np.array([[0.5, 0.0], [0.5, 0.5]]), np.array([1.0, 1.0]))
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [2, 0])
    assert_exact(ref.certificate.duals, [4, 0])
    assert ref.active == (0, 1)
    assert ref.certificate.margin == Q(1, 2)


def test_svm_more_active_constraints_than_dimensions():
    """Three support vectors in R²: the dual is not unique; the certificate picks a valid one."""
    X = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, -1.0], [2.0, 0.5]])
    ref = max_margin(X, np.ones(4))
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [1, 0])
    assert ref.active == (0, 1, 2)
    alpha = ref.certificate.duals
    assert alpha[3] == 0 and all(a >= 0 for a in alpha)
    assert alpha[0] + alpha[1] + alpha[2] == 1 and alpha[1] == alpha[2]


def test_svm_with_irrational_data_stays_exact():
    X = np.array([[sqrt(2), 0], [0, 1]], dtype=object)
    ref = max_margin(X, np.array([1, 1], dtype=object))
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [sqrt(2) / 2, 1])
    assert_exact([ref.certificate.margin], [sqrt(6) / 3])


def test_weighted_l2_margin():
    """min ½(β1² + 2β2²) s.t. β1 + β2 ≥ 1: β = (2/3, 1/3), α = 2/3, value 1/3."""
    ref = max_margin(np.array([[1.0, 1.0]]), np.array([1.0]), weights=np.array([1.0, 2.0]))
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [Q(2, 3), Q(1, 3)])
    assert_exact(ref.certificate.duals, [Q(2, 3)])
    assert ref.certificate.objective == Q(1, 3)
    assert_exact([ref.certificate.norm], [sqrt(Q(2, 3))])


# -- ℓ1 problems (LPs) -----------------------------------------------------------------------------------
def test_l1_margin_sparse_solution():
    """min |β1| + |β2| s.t. β1 + 2β2 ≥ 1: β = (0, 1/2)."""
    ref = max_margin(np.array([[1.0, 2.0]]), np.array([1.0]), norm="l1")
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [0, Q(1, 2)])
    assert_exact(ref.certificate.duals, [Q(1, 2)])
    assert ref.support == (1,) and ref.certificate.margin == 2
    assert ref.cross_check.solver == "HIGHS" and ref.cross_check.agree


def test_l1_interpolation_with_non_unique_dual():
    """min ‖β‖₁ s.t. β1 + β2 = 1, β2 + β3 = 1: β = (0, 1, 0); any α with α1 + α2 = 1, α ∈ [0, 1]² is dual."""
    ref = min_norm_interpolation(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), np.ones(2), norm="l1")
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [0, 1, 0])
    alpha = ref.certificate.duals
    assert alpha[0] + alpha[1] == 1 and 0 <= alpha[0] <= 1 and 0 <= alpha[1] <= 1
    assert ref.certificate.objective == ref.certificate.dual_objective == 1


def test_weighted_l1_interpolation():
    """min |β1| + 3|β2| s.t. β1 + β2 = 1: β = (1, 0), α = 1."""
    ref = min_norm_interpolation(np.array([[1.0, 1.0]]), np.array([1.0]), norm="l1", weights=np.array([1.0, 3.0]))
    assert ref.status == "certified", ref.message
    assert_exact(ref.certificate.solution, [1, 0])
    assert_exact(ref.certificate.duals, [1])


def test_min_l2_interpolation_is_the_pseudo_inverse_solution():
    rng = np.random.default_rng(3)
    X = rng.integers(-3, 4, size=(3, 5)).astype(float)
    y = rng.integers(-2, 3, size=3).astype(float)
    ref = min_norm_interpolation(X, y)
    assert ref.status == "certified", ref.message
    expected = sympy.Matrix(X.astype(int)).pinv() * sympy.Matrix(y.astype(int))
    assert_exact(ref.certificate.solution, list(expected))


# -- failure modes ---------------------------------------------------------------------------------------
def test_non_separable_data_fails_with_the_solver_message():
    ref = max_margin(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, 1.0]))
    assert ref.status == "failed" and "infeasible" in ref.message
    assert ref.certificate is None and ref.solution is None
    with pytest.raises(ValueError, match="no solution"):
        _ = ref.margin


def test_inconsistent_interpolation_fails():
    ref = min_norm_interpolation(np.array([[1.0, 1.0], [2.0, 2.0]]), np.array([1.0, 1.0]), norm="l1")
    assert ref.status == "failed" and "infeasible" in ref.message


def test_a_compiled_problem_serves_every_instance_of_its_shape():
    """One parametrized cvxpy problem per shape: instances solved one after another (an infeasible one in between)
    each get their own answer, the same as from problems built afresh, and a thread gets its own problems."""
    import threading

    import cvxpy as cp

    rng = np.random.default_rng(3)
    instances = [(X, np.sign(X @ rng.normal(size=3))) for X in rng.normal(size=(4, 5, 3))]
    instances.insert(2, (np.array([[1.0, 0, 0], [-1.0, 0, 0], [1.0, 1, 0], [0, 1.0, 1], [0, 0, 1.0]]), np.ones(5)))
    first = [max_margin(X, y) for X, y in instances]
    assert first[2].status == "failed" and all(ref.status != "failed" for k, ref in enumerate(first) if k != 2)
    for (X, y), ref in zip(instances, first):
        if ref.status == "failed":
            continue
        beta = cp.Variable(3)
        fresh = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(beta)), [(y[:, None] * X) @ beta >= 1])
        fresh.solve(solver="CLARABEL")
        np.testing.assert_allclose(ref.solution, beta.value, atol=1e-6)
    templates = dict(convex._PROGRAMS.cache)
    assert all(("convex", "l2", "margin", (5, 3), solver) in templates for solver in ("CLARABEL", "OSQP"))
    other: dict = {}
    thread = threading.Thread(target=lambda: other.update(ref=max_margin(*instances[0]),
                                                          cache=dict(convex._PROGRAMS.cache)))
    thread.start()
    thread.join()
    assert np.array_equal(other["ref"].solution, first[0].solution)
    assert all(other["cache"][key] is not templates[key] for key in other["cache"])


def test_solver_disagreement_is_reported(monkeypatch):
    solve = convex._solve_numeric

    def biased(problem, solver):
        result = solve(problem, solver)
        if solver == convex.SECOND_SOLVER["l2"]:
            return convex._Numeric(solver, result.status, None, result.beta + 0.1, result.alpha,
                                   result.objective + 0.1, result.slacks)
        return result

    monkeypatch.setattr(convex, "_solve_numeric", biased)
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0]))
    assert not ref.cross_check.agree and ref.cross_check.objective_gap == pytest.approx(0.1)
    assert "disagrees" in ref.message
    assert ref.status == "certified"  # the exact certificate does not depend on the second solver


def test_uncertified_solution_is_reported_as_solved(monkeypatch):
    monkeypatch.setattr(convex, "_exact_kkt_point", lambda *args: None)
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, 1.0]))
    assert ref.status == "solved" and ref.certificate is None
    assert "not certified" in ref.message and "inconsistent" in ref.message
    np.testing.assert_allclose(ref.solution, [1.0, 1.0], atol=1e-7)
    assert ref.active == (0, 1)


def test_programmer_errors_raise():
    with pytest.raises(ValueError, match="n × d"):
        ConvexProblem("l2", "margin", np.ones((3, 2)), np.ones(2))
    with pytest.raises(ValueError, match="positive"):
        ConvexProblem("l2", "margin", np.ones((3, 2)), np.ones(3), weights=np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="norm"):
        ConvexProblem("l3", "margin", np.ones((3, 2)), np.ones(3))


# -- random instances ------------------------------------------------------------------------------------
def separable_data(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in the unit ball labelled by a random teacher, keeping |⟨x, u⟩| ≥ 0.1."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    rows = []
    while len(rows) < n:
        x = rng.standard_normal(d)
        x *= rng.uniform() ** (1 / d) / np.linalg.norm(x)
        if abs(x @ u) >= 0.1:
            rows.append(x)
    X = np.array(rows)
    return X, np.sign(X @ u)


@settings(derandomize=True, max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 12), d=st.integers(2, 4), norm=st.sampled_from(["l2", "l1"]))
def test_random_separable_data_is_certified(seed, n, d, norm):
    X, y = separable_data(seed, n, d)
    ref = max_margin(X, y, norm=norm)
    assert ref.status == "certified", ref.message
    assert ref.cross_check.agree
    assert abs(ref.objective - ref.numeric_objective) <= 1e-7 * max(1.0, ref.objective)
    margins = y * (X @ ref.solution)
    assert margins.min() == pytest.approx(1.0, abs=1e-12)


@settings(derandomize=True, max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 4), extra=st.integers(1, 3))
def test_random_min_norm_interpolation_is_certified(seed, n, extra):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((n, n + extra)), rng.standard_normal(n)
    ref = min_norm_interpolation(X, y)
    assert ref.status == "certified", ref.message
    np.testing.assert_allclose(ref.solution, np.linalg.pinv(X) @ y, rtol=1e-10, atol=1e-12)


def test_cost_of_a_moderate_instance():
    """40 points in R⁶, both norms: certified well within a second each (regression guard on speed)."""
    X, y = separable_data(7, 40, 6)
    for norm in ("l2", "l1"):
        start = time.perf_counter()
        ref = max_margin(X, y, norm=norm)
        assert ref.status == "certified", ref.message
        assert time.perf_counter() - start < 3.0


# -- group norms (SOCP) ------------------------------------------------------------------------------------------
def test_group_norm_with_one_block_is_the_l2_svm_and_with_coordinate_blocks_the_l1_margin():
    X, y = separable_data(3, 8, 4)
    for blocks, norm in (([np.eye(4)], "l2"), (list(np.eye(4)), "l1")):
        ref, exact = convex.group_norm_problem(X, y, blocks), max_margin(X, y, norm=norm)
        assert ref.status == "solved" and exact.status == "certified", (ref.message, exact.message)
        np.testing.assert_allclose(ref.solution, exact.solution, atol=1e-6)
        assert abs(ref.gap) < 1e-8 and ref.solution_gap < 1e-5
        assert ref.margin == pytest.approx(exact.margin, rel=1e-8)


def test_group_norm_cross_check_survives_a_failing_second_solver(monkeypatch):
    # issue 16: when SCS fails (an error, or a status other than optimal, as on numpy 2.5 / scipy 1.18) the
    # cross-check falls back to CLARABEL on the epigraph form instead of reporting an infinite solution gap
    monkeypatch.setattr(convex, "FALLBACK_SOLVER", "OSQP")  # OSQP cannot solve cone programs: a solver error
    X, y = separable_data(3, 8, 4)
    ref, exact = convex.group_norm_problem(X, y, [np.eye(4)]), max_margin(X, y)
    assert ref.status == "solved" and "epigraph" in ref.message and "OSQP" in ref.message, ref.message
    assert abs(ref.gap) < 1e-8 and ref.solution_gap < 1e-5
    np.testing.assert_allclose(ref.solution, exact.solution, atol=1e-6)


def test_complex_l1_of_the_two_point_dft():
    # F = [[1, 1], [1, −1]]/√2: ‖Fz‖₁ = √2 max(|z₁|, |z₂|); margins z₁ + 2z₂ ≥ 1, 3z₂ ≥ 1 give z = (1/3, 1/3)
    F = np.array([[1.0, 1.0], [1.0, -1.0]], dtype=complex) / np.sqrt(2)
    ref = convex.group_norm_problem(np.array([[1.0, 2.0], [0.0, -3.0]]), np.array([1.0, -1.0]),
                                    convex.complex_l1_blocks(F))
    np.testing.assert_allclose(ref.solution, [1 / 3, 1 / 3], atol=1e-8)
    assert ref.objective == pytest.approx(np.sqrt(2) / 3, rel=1e-9) and abs(ref.gap) < 1e-9
    # F z = (√2/3, 0): the dual attains Σα = √2/3 with ‖u_1‖ = 1 on the nonzero block and ‖u_2‖ ≤ 1
    assert ref.duals.sum() == pytest.approx(np.sqrt(2) / 3, rel=1e-9) and np.all(ref.duals >= -1e-12)
    assert ref.block_duals[0] == pytest.approx(1.0, abs=1e-8) and ref.block_duals[1] <= 1 + 1e-9


def test_complex_l1_blocks_measure_moduli():
    rng = np.random.default_rng(4)
    C, z = rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5)), rng.normal(size=5)
    blocks = convex.complex_l1_blocks(C)
    assert sum(np.linalg.norm(B @ z) for B in blocks) == pytest.approx(np.abs(C @ z).sum(), rel=1e-14)


def test_group_norm_interpolation_and_failures():
    X, y = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]]), np.array([1.0, -1.0])
    ref, exact = convex.group_norm_problem(X, y, list(np.eye(3)), "interpolation"), \
        min_norm_interpolation(X, y, norm="l1")
    np.testing.assert_allclose(ref.solution, exact.solution, atol=1e-7)
    bad = convex.group_norm_problem(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.ones(2), [np.eye(2)])
    assert bad.status == "failed" and bad.solution is None


def test_group_norm_cost_of_a_moderate_instance():
    X, y = separable_data(7, 40, 6)
    start = time.perf_counter()
    ref = convex.group_norm_problem(X, y, convex.complex_l1_blocks(np.fft.fft(np.eye(6)) / np.sqrt(6)))
    assert ref.status == "solved" and abs(ref.gap) < 1e-8
    assert time.perf_counter() - start < 3.0


# -- solver output (issue 13) -------------------------------------------------------------------------------------
def test_highs_writes_nothing_to_stdout(capfd):
    # HiGHS prints its banner from C to fd 1 once per process, at the first highspy.Highs(): a fresh process shows
    # it; in this one, capfd checks that a solve logs nothing either
    script = ("import numpy as np; from numerics.convex import max_margin; "
              "r = max_margin(np.array([[1.0, 2.0], [0.0, -3.0]]), np.array([1.0, -1.0]), norm='l1'); "
              "assert r.cross_check.solver == 'HIGHS' and r.cross_check.agree, r.message")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert run.returncode == 0, run.stderr
    assert run.stdout == "", run.stdout
    assert "HiGHS" not in run.stderr
    capfd.readouterr()
    ref = max_margin(np.array([[1.0, 2.0], [0.0, -3.0]]), np.array([1.0, -1.0]), norm="l1")
    assert ref.cross_check.solver == "HIGHS"
    out, err = capfd.readouterr()
    assert out == "" and "HiGHS" not in err


def test_l1_certifies_a_vertex_when_the_solver_returns_a_point_inside_an_optimal_face():
    """Two columns equal up to rounding (the tied singular values of a full-length convolution): the interior-point
    solver splits the weight between them, whose exact KKT system is inconsistent; a vertex of the face certifies."""
    s = np.array([[1.6466317292326647, 1.6466317292326644, 0.22955561, 0.09770094]])
    reference = max_margin(s, np.array([1.0]), "l1")
    assert reference.status == "certified"
    assert np.count_nonzero(reference.solution) == 1 and reference.solution[0] == pytest.approx(1 / s[0, 0])
    # the certificate is exact: the vertex on the larger column; the other column's would violate dual feasibility
    assert 1 / np.abs(reference.solution).sum() == pytest.approx(s.max(), rel=1e-15)
