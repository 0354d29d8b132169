"""Theorem 3 on the smallest separable data set: two points, where the max-margin direction is known exactly."""

import numpy as np
import sympy

from verify import Context, claim, criterion, plain


def gd_direction(X: np.ndarray, y: np.ndarray, steps: int, eta: float = 0.5) -> np.ndarray:
    """Gradient descent on the logistic loss from w = 0; the iterate's direction after ``steps`` steps."""
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        margins = y * (X @ w)
        w += eta * (X.T @ (y / (1 + np.exp(margins)))) / len(y)
    return w / np.linalg.norm(w)


@criterion("angle between w and u below tolerance")
def angle_below(w: np.ndarray, u: np.ndarray, tolerance: float) -> tuple[bool, str, dict]:
    cosine = float(w @ u / (np.linalg.norm(w) * np.linalg.norm(u)))
    angle = float(np.arccos(min(1.0, cosine)))
    return angle <= tolerance, f"angle {angle:.3g} rad (tolerance {tolerance})", {"angle": angle}


@criterion("u is the hard-margin SVM solution of the two points")
def svm_solution(u: sympy.Matrix, x1: sympy.Matrix, x2: sympy.Matrix) -> bool:
    # with both points support vectors, u = a·x1 − b·x2 (labels +1, −1) and the margins are exactly 1
    a, b = sympy.symbols("a b")
    solution = sympy.solve([(a * x1 - b * x2).dot(x1) - 1, -(a * x1 - b * x2).dot(x2) - 1], [a, b], dict=True)
    return bool(solution) and all(v >= 0 for v in solution[0].values()) and sympy.simplify(
        (solution[0][a] * x1 - solution[0][b] * x2) - u) == sympy.zeros(2, 1)


@claim(
    id="soudry.thm3.two-points",
    ref="Thm. 3, Sec. 3 (arXiv:1710.10345v4)",
    kind="theorem",
    title="On two separable points, GD's direction tends to the hard-margin SVM direction",
    statement=("For $x_1 = (1, 2)$ with label $+1$ and $x_2 = (1, -1)$ with label $-1$, gradient descent on the "
               "logistic loss satisfies $w(t) \\/ norm(w(t)) -> u \\/ norm(u)$, $u$ the hard-margin SVM solution."),
    hypotheses=plain("logistic loss, step size 0.5 < 2/β, w(0) = 0"),
    conclusions={"the hard-margin SVM solution is u = (−1/3, 2/3) (exact)": "certified",
                 "direction → u (angle ≤ 0.15 rad at 10⁴ steps)": "confirmed"},
    profiles={"quick": "exact SVM solution; 10⁴ GD steps", "full": "as quick"},
)
def check_two_points(ctx: Context) -> None:
    x1, x2 = sympy.Matrix([1, 2]), sympy.Matrix([1, -1])
    u = sympy.Matrix([sympy.Rational(-1, 3), sympy.Rational(2, 3)])
    other = sympy.Matrix([sympy.Rational(-1, 3), 1])
    name = "the hard-margin SVM solution is u = (−1/3, 2/3) (exact)"
    ctx.prove("both points support vectors with margin 1", "exact", svm_solution(u, x1, x2), conclusion=name)
    ctx.control("a shifted solution", svm_solution(other, x1, x2), "u₂ = 2/3 → 1")
    X, y = np.array([[1.0, 2.0], [1.0, -1.0]]), np.array([1.0, -1.0])
    w = gd_direction(X, y, 10_000)
    target = np.array([-1.0, 2.0]) / np.sqrt(5.0)
    direction = "direction → u (angle ≤ 0.15 rad at 10⁴ steps)"
    ctx.support("GD direction after 10⁴ steps", "numeric", angle_below(w, target, 0.15), conclusion=direction)
    ctx.control("a wrong limit direction", angle_below(w, np.array([1.0, 0.0]), 0.15), "u → e₁")
