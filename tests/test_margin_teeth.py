"""Paper 001's remark helpers against independent computations: Theorem 5.1's plateau (Remark 3.2, corrected) from
the reduced flow integrated numerically, not from its closed form."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
from scipy.integrate import solve_ivp

from theorems.margin_maximization.remarks import plateau

BLOW_UP = 1e6  # the growing coordinate is stopped here; the other is then within ~1e-4 of its limit


def reduced_flow_plateau(x: np.ndarray, depth: int, k: int) -> float:
    """da_i/dτ = x_i a_i^(m−1) from a(0) = (1, 1), integrated until a_k reaches BLOW_UP: the other coordinate."""

    def field(_: float, a: np.ndarray) -> np.ndarray:
        return x * a ** (depth - 1)

    def blown(_: float, a: np.ndarray) -> float:
        return a[k] - BLOW_UP

    blown.terminal = True
    run = solve_ivp(field, (0.0, 10.0), np.ones(2), events=blown, rtol=1e-11, atol=1e-12, method="LSODA")
    assert run.status == 1  # stopped by the event, not by the horizon
    return float(run.y[1 - k, -1])


@pytest.mark.parametrize(("x", "depth", "k"), [((1.02, 1.0), 3, 0), ((1.02, 1.0), 4, 0), ((0.97, 1.0), 3, 1),
                                               ((1.0, 1.05), 4, 1)])  # Remark 3.2's m = 3, 4, either coordinate
def test_plateau_is_where_the_reduced_flow_leaves_the_bounded_coordinate(x, depth, k) -> None:
    expected = reduced_flow_plateau(np.array(x), depth, k)
    assert plateau(np.array([x]), depth, k) == pytest.approx(expected, rel=1e-3)
    assert expected > 1.5  # far from its start a(0) = 1, so a wrong exponent or offset cannot match


def test_minimal_factorization_drops_unconverged_solver_answers(monkeypatch) -> None:
    """A feasible point the solver did not converge from (iteration limit) is not counted as the minimum."""
    from types import SimpleNamespace

    import scipy.optimize

    from numerics.networks import diagonal
    from theorems.margin_maximization.definitions import minimal_factorization

    net, beta = diagonal(2, 2, "linear"), np.array([1.0, 2.0])
    feasible = np.array([1.0, 2.0, 1.0, 1.0])  # w = (1, 2), v = (1, 1): computes β, ‖θ‖² = 7 > the minimum 6
    for success, expected in ((True, 7.0), (False, np.inf)):
        answer = SimpleNamespace(success=success, x=feasible)
        monkeypatch.setattr(scipy.optimize, "minimize", lambda *args, answer=answer, **kwargs: answer)
        assert minimal_factorization(net, beta, np.random.default_rng(0)) == expected


@pytest.mark.parametrize("expression", ["sqrt(2)", "-log(E - 1)", "log(3)",
                                        "cos(pi/7) + cos(3*pi/7) + cos(5*pi/7) - 1/2"])
def test_an_irrational_enclosure_contains_its_number_and_is_narrow(expression: str) -> None:
    """The interval around an exact number is computed at 60 digits: at mpmath's default 53 bits it used to be the
    double nearest the number (both ends equal), which does not contain √2."""
    from theorems.margin_maximization.common import _interval

    value = sympy.sympify(expression)
    enclosure = _interval(value, 50)
    with mpmath.workdps(100):
        exact = mpmath.mpf(str(sympy.N(value, 100)))
        low, high = mpmath.mpf(enclosure.a.a), mpmath.mpf(enclosure.b.b)
        assert low <= exact <= high and 0 < high - low < mpmath.mpf(10) ** -45


def test_a_point_with_one_nonzero_weight_is_judged_off_its_ray() -> None:
    """θ = e_1 (only w_1's first entry): every output is 0, so the margins are equal, and −∇L has a component on v_1
    (Σ_i y_i σ(x_i1) ≠ 0 on Theorem 3.2's data) which θ lacks: the flow leaves the ray. The proportionality test
    divides by θ's first nonzero entry, the only one here."""
    from theorems.margin_maximization import common as C

    c = C.construction("thm3.2")
    theta = np.zeros(len(c.theta), dtype=object)
    theta[0] = 1
    assert C.flow_stays_on_ray(c.model, theta, c.X, c.Y) is False
