"""Paper 000, Sec. 2–3 and Apps. A–B: the two-point setting, its assumptions and regions, Thm 1 (rank-one
zero-loss networks exist) with Lemma 2, and the remarks around them.

Every exact check runs the engines (``numerics.networks`` / ``numerics.losses``) on object arrays of sympy
numbers, so the same code that trains the networks is what the certificates evaluate.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import sympy

from numerics import backend as B
from numerics import exact as E
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.tolerances import above
from theorems.rank_minimization.criteria import identities
from theorems.rank_minimization.two_point_common import (
    BOTH,
    DEAD,
    EXACT,
    FIRST,
    SECOND,
    PatternModel,
    TwoPoints,
    exact_rank,
    fit_output_layer,
    neurons,
    pack,
    paper_data,
    pythagorean_data,
    rank_one_interpolant,
    thm2_radius,
)
from verify import Context, Decision, claim, criterion, tightness

# exact datasets used throughout: rational unit inputs (Pythagorean triples) and the paper's data in radicals
PYTHAGOREAN = ((sympy.Rational(21, 29), sympy.Rational(20, 29)), (sympy.Rational(4, 5), sympy.Rational(3, 5)),
               (sympy.Rational(15, 17), sympy.Rational(8, 17)), (sympy.Rational(24, 25), sympy.Rational(7, 25)))


def exact_obtuse_datasets() -> list[TwoPoints]:
    """Datasets satisfying Assumptions 1–2 exactly: four rational angles and the paper's data in radicals."""
    return [pythagorean_data(s, c) for s, c in PYTHAGOREAN] + [paper_data(exact=True)]


INTEGER_DATA = TwoPoints(E.to_exact([[2, 1], [-1, 1]]), E.to_exact([[1, 0], [0, 1]]), "integer data")  # kinks exact


def exact_residual(theta: np.ndarray, data: TwoPoints) -> np.ndarray:
    """N_θ(X) − Y computed by the engine in exact arithmetic, entries in canonical form."""
    return E.canonical(data.objective.residuals(theta))


# -- Sec. 2: the setting ----------------------------------------------------------------------------------
def kink_points(X: np.ndarray) -> list[np.ndarray]:
    """Exact θ realizing every sign pattern (−, 0, +) of the four pre-activations w_iᵀx_j (81 points): w_i solves
    Xw_i = s_i exactly; V is a fixed rational matrix."""
    solve = sympy.Matrix(X).inv()
    V = E.to_exact([[sympy.Rational(3, 2), -2], [sympy.Rational(1, 3), sympy.Rational(5, 4)]])
    points = []
    for s1, s2 in itertools.product(itertools.product((-1, 0, 1), repeat=2), repeat=2):
        W = np.array([list(solve * sympy.Matrix(s1)), list(solve * sympy.Matrix(s2))], dtype=object)
        points.append(pack(W, V))
    return points


def indicator_gradient(theta: np.ndarray, data: TwoPoints) -> np.ndarray:
    """Lemma 7's gradient with σ'(z) = 1[z > 0] at every pre-activation, evaluated exactly at θ."""
    W, V = theta[:4].reshape(2, 2), theta[4:].reshape(2, 2)
    Xc, Yc = np.asarray(data.X).T, np.asarray(data.Y).T
    Z = W @ Xc
    active = B.positive(Z)
    residual = V @ (Z * active) - Yc
    return pack((active * (V.T @ residual)) @ Xc.T, residual @ (Z * active).T)


def gradient_disagreements(model: Objective, data: TwoPoints, points: list[np.ndarray]) -> int:
    """Points where the engine's exact gradient differs from the indicator formula."""
    return sum(bool(np.any(E.signs(model.gradient(theta) - indicator_gradient(theta, data)))) for theta in points)


FORMULA = identities("Lemma 7's formula minus the derivative of the loss vanishes identically")
SETUP_FORMULA = "Lemma 7's gradient formula (every activation pattern)"
SETUP_ENGINE = "the engine's gradient is that formula with σ'(0) = 0 (81 sign patterns of an integer dataset)"


@criterion("the engine's exact gradient equals the indicator formula at every point")
def engine_matches_formula(relu_slope_at_zero: float, data: TwoPoints, points: list[np.ndarray]) -> Decision:
    model = Objective(fully_connected([2, 2, 2], relu_slope_at_zero=relu_slope_at_zero), data.X, data.Y, "square")
    disagreements = gradient_disagreements(model, data, points)
    return Decision(disagreements == 0, f"{disagreements} of {len(points)} points disagree",
                    {"points": len(points), "disagreements": disagreements})


@claim(
    id="rank.def.setup",
    ref="Sec. 2, Eq. (1); Sec. 3",
    kind="definition",
    title="The depth-2 ReLU network, the square loss of Eq. (1), and gradient flow with σ'(0) = 0",
    statement=("$N_(W,V)(x) = V sigma(W x)$ with $W, V in RR^(2 times 2)$ and $sigma(z) = max{0, z}$; "
               "$L_(X,Y)(W,V) = 1/2 sum_(i=1)^2 norm(N_(W,V)(x_i) - y_i)^2$; gradient flow "
               "$dot(theta) = -nabla L(theta)$ with the convention $sigma'(0) = 0$, so that "
               "$partial L \\/ partial W = (sigma'(W X) dot.o V^T (V sigma(W X) - Y)) X^T$ and "
               "$partial L \\/ partial V = (V sigma(W X) - Y) sigma(W X)^T$."),
    hypotheses=["inputs and targets are the columns of X, Y (the suite stores them as rows)"],
    conclusions={"Lemma 7's gradient formula (every activation pattern)": "certified",
                 "the engine's gradient is that formula with σ'(0) = 0 (81 sign patterns of an integer dataset)":
                     "certified"},
    profiles={"quick": "every activation pattern symbolically; the engine at the 81 sign patterns (with zeros) of "
                       "an integer dataset exactly",
              "full": "as quick", "paper": "as quick"},
    notes=[("The paper's gradient display (Lemma 7) is the formula checked here; σ'(0) = 0 makes it the gradient "
           "of every one-sided pattern whose entry at the kink is 0.")],
)
def check_setup(ctx: Context) -> None:
    generic = PatternModel.build()
    (gW, gV), (pW, pV) = generic.gradient(), generic.paper_gradient()
    ctx.prove("Lemma 7's gradient formula on every activation pattern", "symbolic",
              FORMULA({"∂L/∂W − formula": gW - pW, "∂L/∂V − formula": gV - pV}),
              "with σ(WX) = P ⊙ WX and σ'(WX) = P for a pattern P of free symbols (so every 0/1 pattern at once) and "
              "all entries of W, V, X, Y symbolic, the formula equals sympy's derivative of ½‖V(P ⊙ WX) − Y‖²",
              conclusion=SETUP_FORMULA)
    ctx.control("σ(WX) replaced by WX in ∂L/∂V",
                FORMULA({"∂L/∂W − formula": gW - pW, "∂L/∂V − formula": gV - generic.residual * (generic.W
                                                                                                  * generic.Xc).T}),
                "the same identity check refutes the formula without the activation pattern")

    data = INTEGER_DATA
    points = kink_points(data.X)
    ctx.prove("engine = formula with σ'(0) = 0, all 81 sign patterns", "exact",
              engine_matches_formula(0.0, data, points),
              "exact rational θ with pre-activations in {−1, 0, 1}: the engine's gradient equals the indicator "
              "formula entry by entry", conclusion=SETUP_ENGINE)
    ctx.control("σ'(0) = 1 convention", engine_matches_formula(1.0, data, points),
                "the same exact comparison with a network using σ'(0) = 1 disagrees at the kinks")


@criterion("the exact zero-loss interpolant has rank V = 2 on every dataset")
def interpolant_has_full_rank_v(datasets: list[TwoPoints]) -> Decision:
    ranks = []
    for data in datasets:
        theta = rank_one_interpolant(data)
        fits = not np.any(E.signs(exact_residual(theta, data)))
        ranks.append((exact_rank(data.Y), exact_rank(theta[4:].reshape(2, 2)), fits))
    holds = all(rank_v == 2 and fits for _, rank_v, fits in ranks)
    return Decision(holds, "(rank Y, rank V, zero loss) = " + ", ".join(map(str, ranks)), {"instances": len(ranks)})


DETERMINANT = identities("det(AC) − det A det C vanishes identically")


@claim(
    id="rank.claim.rankV",
    ref="Sec. 3 (before Thm 1); Eq. (9)",
    kind="remark",
    title="Zero loss on targets of rank 2 forces rank V = 2",
    statement=("If $V sigma(W X) = Y$ with $W, V in RR^(2 times 2)$ and $op(\"rank\")(Y) = 2$, then "
               "$op(\"rank\")(V) = op(\"rank\")(sigma(W X)) = 2$; so only $op(\"rank\")(W) <= 1$ can be low rank."),
    hypotheses=["2×2 matrices"],
    conclusions={"rank V = rank σ(WX) = 2 whenever rank Y = 2": "certified"},
    profiles={"quick": "det(AB) = det(A)det(B) symbolically; Thm 1's interpolants of five exact datasets",
              "full": "as quick", "paper": "as quick"},
)
def check_rank_v(ctx: Context) -> None:
    A, C = sympy.Matrix(2, 2, sympy.symbols("a:4", real=True)), sympy.Matrix(2, 2, sympy.symbols("c:4", real=True))
    ctx.prove("det(Vσ(WX)) = det V · det σ(WX)", "symbolic", DETERMINANT({"det(AC) − det A det C": (A * C).det()
                                                                           - A.det() * C.det()}),
              "for symbolic 2×2 matrices; det Y ≠ 0 then forces det V ≠ 0 and det σ(WX) ≠ 0")
    ctx.control("det(A + C) in place of det(AC)", DETERMINANT({"det(AC) − det A det C": (A + C).det()
                                                                - A.det() * C.det()}),
                "the same identity check refutes multiplicativity for the sum: the step needs the product")
    datasets = exact_obtuse_datasets()
    ctx.prove("exact interpolants have rank V = 2", "exact", interpolant_has_full_rank_v(datasets),
              "Thm 1's zero-loss networks of five exact datasets with rank Y = 2: rank V = 2 exactly")
    low = pythagorean_data(*PYTHAGOREAN[1], Y=[[1, 2], [2, 4]])
    ctx.control("targets of rank 1", interpolant_has_full_rank_v([low]),
                "with Y of rank 1 the exact zero-loss network has rank V = 1: the conclusion needs rank Y = 2")


# -- Thm 1 and Lemma 2 --------------------------------------------------------------------------------------
@criterion("App. A's network fits Y exactly with rank W = 1 on every dataset")
def construction_interpolates(datasets: list[TwoPoints]) -> Decision:
    """(N(X) = Y exactly, rank W) for App. A's construction on exact datasets."""
    results = []
    for data in datasets:
        theta = rank_one_interpolant(data)
        results.append((not np.any(E.signs(exact_residual(theta, data))), exact_rank(theta[:4].reshape(2, 2))))
    holds = all(fit and rank == 1 for fit, rank in results)
    return Decision(holds, "(fits, rank W) = " + ", ".join(map(str, results)), {"instances": len(results)})


def thm1_symbolic_proof() -> dict[str, sympy.Expr]:
    """The identities behind App. A for symbolic inputs (norms n_i = sqrt(x_iᵀx_i))."""
    x = sympy.Matrix(2, 2, lambda r, c: sympy.Symbol(f"x{r}{c}", real=True))  # rows x_1, x_2
    x1, x2 = x[0, :].T, x[1, :].T
    n1, n2 = sympy.sqrt(x1.dot(x1)), sympy.sqrt(x2.dot(x2))
    w1 = x1 / n1 - x2 / n2
    a, b = sympy.symbols("a b", positive=True)
    Y = sympy.Matrix(2, 2, sympy.symbols("y:4", real=True))
    hidden = sympy.diag(a, b)  # σ(X Wᵀ) when w_1ᵀx_1 = a > 0 > −b = w_1ᵀx_2 and w_2 = −w_1
    V = (hidden.inv() * Y).T
    checks = [
        ("w_1ᵀx_1 = (‖x_1‖‖x_2‖ − x_1ᵀx_2)/‖x_2‖", w1.dot(x1) - (n1 * n2 - x1.dot(x2)) / n2),
        ("w_1ᵀx_2 = (x_1ᵀx_2 − ‖x_1‖‖x_2‖)/‖x_1‖", w1.dot(x2) - (x1.dot(x2) - n1 * n2) / n1),
        ("Lagrange: ‖x_1‖²‖x_2‖² − (x_1ᵀx_2)² = det(X)²", x1.dot(x1) * x2.dot(x2) - x1.dot(x2) ** 2 - x.det() ** 2),
        ("det W = 0", sympy.Matrix([w1.T, -w1.T]).det()),
        ("σ(XWᵀ)Vᵀ = Y", hidden * V.T - Y),
    ]
    return dict(checks)


APP_A = identities("App. A's identities vanish identically for symbolic inputs")


@claim(
    id="rank.thm1",
    ref="Thm 1, Sec. 3; proof in App. A",
    kind="theorem",
    title="Rank-one zero-loss networks exist for every two-point dataset with a positive angle",
    statement=("For every $(X, Y) in RR^(2 times 2) times RR^(2 times 2)$ whose inputs $x_1, x_2$ are nonzero with "
               "$angle(x_1, x_2) > 0$ there are $W, V in RR^(2 times 2)$ with $N_(W,V)(X) = Y$ and "
               "$op(\"rank\")(W) = 1$: take $w_1 = x_1 \\/ norm(x_1) - x_2 \\/ norm(x_2)$, $w_2 = -w_1$ and "
               "$V = Y sigma(W X)^dagger$."),
    hypotheses=["x_1, x_2 ≠ 0 and not positively parallel", "Y arbitrary (any rank)"],
    conclusions={"App. A's network interpolates with rank W = 1": "certified"},
    profiles={"quick": "symbolic identities of App. A; 8 exact datasets (rationals, radicals, antipodal, acute, "
                       "Y of rank 0–2)",
              "full": "as quick", "paper": "as quick"},
    notes=[("Strict positivity of w_1ᵀx_1 and −w_1ᵀx_2 is the equality case of Cauchy–Schwarz: by Lagrange's "
           "identity x_1ᵀx_2 = ‖x_1‖‖x_2‖ only for positively parallel inputs, i.e. angle 0.")],
)
def check_thm1(ctx: Context) -> None:
    ctx.prove("App. A identities", "symbolic", APP_A(thm1_symbolic_proof()),
              "with symbolic inputs: w_1ᵀx_1 > 0 > w_1ᵀx_2 (strict by Lagrange's identity unless x_1, x_2 are "
              "positively parallel), det W = 0, and σ(XWᵀ) = diag(a, b) is inverted by V")

    unit_rational = E.to_exact([[3, 4], [-5, 12]]) / np.array([[5], [13]])
    exact_cases = [pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5), [[2, -1], [sympy.Rational(1, 3), 7]]),
                   TwoPoints(unit_rational, E.to_exact([[2, -1], [sympy.Rational(1, 3), 7]]),
                             ", ".join(f"({a}, {b})" for a, b in unit_rational).replace("-", "−")),
                   TwoPoints(E.to_exact([[1, 2], [3, -1]]), E.to_exact([[1, 0], [0, 1]]), "non-unit, radicals"),
                   TwoPoints(E.to_exact([[2, 1], [-4, -2]]), E.to_exact([[1, 2], [3, 4]]), "antipodal (angle π)"),
                   TwoPoints(E.to_exact([[1, 0], [1, 1]]), E.to_exact([[1, 2], [2, 4]]), "acute, rank-1 Y"),
                   TwoPoints(E.to_exact([[1, 0], [1, 1]]), E.to_exact([[0, 0], [0, 0]]), "acute, Y = 0"),
                   paper_data(exact=True), pythagorean_data(*PYTHAGOREAN[3])]
    ctx.prove("exact instances", "exact", construction_interpolates(exact_cases),
              "engine in exact arithmetic: N(X) = Y and rank W = 1 for " + ", ".join(d.label for d in exact_cases))

    parallel = TwoPoints(E.to_exact([[1, 2], [2, 4]]), E.to_exact([[1, 0], [0, 1]]), "angle 0")
    ctx.control("angle 0", construction_interpolates([parallel]),
                "x_2 = 2x_1, Y = I: the construction gives w_1 = 0 and misses Y exactly (no network fits: σ(cz) = "
                "cσ(z) for c > 0 makes σ(WX) rank ≤ 1 for every W)")
    parallel_zero = TwoPoints(parallel.X, E.to_exact([[0, 0], [0, 0]]), "angle 0, Y = 0")
    ctx.control("angle 0 with Y = 0", construction_interpolates([parallel_zero]),
                "x_2 = 2x_1 and Y = 0: the construction's W = 0 fits the zero targets, but its rank is 0, not 1 (the "
                "hypothesis that x_1, x_2 are not positively parallel is what makes w_1 ≠ 0)", because="(True, 0)")


def private_neuron_layer(X: np.ndarray, hidden: int, rng: np.random.Generator) -> np.ndarray:
    """An exact hidden layer where neuron j is active on x_j alone (w_jᵀx_l = 2δ_jl − 1) and the remaining neurons
    are random integer vectors (Lemma 2's hypothesis; X of full row rank: n independent points in R^d, d ≥ n)."""
    n, d = X.shape
    right_inverse = sympy.Matrix(X).pinv()  # X X^† = I for full row rank
    rows = [list(right_inverse * sympy.Matrix([1 if k == j else -1 for k in range(n)])) for j in range(n)]
    rows += [[sympy.Integer(int(v)) for v in rng.integers(-3, 4, size=d)] for _ in range(hidden - n)]
    return np.array(rows, dtype=object)


@criterion("V = Yσ(WX)^† interpolates every instance exactly")
def pseudo_inverse_interpolates(instances: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> Decision:
    """Whether V = Y σ(WX)^† interpolates (exact), with the engine's network of the matching widths."""
    fits = 0
    for X, Y, W in instances:
        data = TwoPoints(X, Y)
        V = fit_output_layer(W, data)
        network = fully_connected([X.shape[1], W.shape[0], Y.shape[1]])
        residual = network.forward(np.concatenate([W.ravel(), V.ravel()]), X) - Y
        fits += not np.any(E.signs(E.canonical(residual)))
    shapes = "; ".join(f"{n}, {d}, {h}, {o}" for n, d, h, o in sorted({(*X.shape, W.shape[0], Y.shape[1])
                                                                       for X, Y, W in instances}))
    return Decision(fits == len(instances), f"{fits} of {len(instances)} instances interpolated exactly "
                    f"(points, input dimension, hidden width, outputs: {shapes})",
                    {"instances": len(instances), "interpolating": fits, "shapes": shapes})


LEFT_INVERSE = identities("the private-neuron left inverse times σ(WX) minus I vanishes identically")


@claim(
    id="rank.lem2",
    ref="Lemma 2, App. A",
    kind="lemma",
    title="A private active neuron for every input lets the output layer interpolate",
    statement=("If for every input $x_j$ some row $w_i$ of $W in RR^(d_h times d)$ has $w_i^T x_j > 0$ and "
               "$w_i^T x_l <= 0$ for all $l != j$, then for every $Y in RR^(d_o times n)$ some $V$ gives "
               "$N_(W,V)(X) = Y$ (the proof takes $V = Y sigma(W X)^dagger$)."),
    hypotheses=["n inputs, any widths"],
    conclusions={"some V interpolates (n = 2, 3 symbolically; n = 2, 3, 4 exact instances)": "certified"},
    profiles={"quick": "symbolic left inverse for n ∈ {2, 3}, hidden width n or n + 2; 12 exact random instances "
                       "(n points in R^n or R^(n+1)); a shared-neuron control",
              "full": "as quick with 40 exact instances", "paper": "as full"},
    notes=[("The symbolic proof uses the left inverse that reads each input's private neuron (V selects those "
           "rows, scaled by 1/σ(w_iᵀx_i)); the paper's pseudo-inverse V is checked on the exact instances.")],
)
def check_lem2(ctx: Context) -> None:
    def left_inverse_gap(n: int, extra: int, private: bool) -> sympy.Matrix:
        hidden = n + extra
        H = sympy.Matrix(hidden, n, lambda i, j: sympy.Symbol(f"h{i}{j}", nonnegative=True))
        for j in range(n):  # rows 0..n−1 are the private neurons: active on x_j only (or on all, if not private)
            for k in range(n):
                H[j, k] = sympy.Symbol(f"d{j}", positive=True) if k == j else (0 if private else H[j, k])
        left = sympy.zeros(n, hidden)
        for j in range(n):
            left[j, j] = 1 / H[j, j]
        return left * H - sympy.eye(n)

    shapes = [(n, extra) for n in (2, 3) for extra in (0, 2)]
    ctx.prove("left inverse through the private neurons", "symbolic",
              LEFT_INVERSE({f"n = {n}, width {n + e}": left_inverse_gap(n, e, True) for n, e in shapes}),
              "σ(WX) has a positive diagonal block on the private neurons, so V = Y·(their rows scaled by 1/d_j) "
              "gives Vσ(WX) = Y; identity proved for n ∈ {2, 3} with hidden width n and n + 2, all other "
              "activations free")
    ctx.control("neurons active on other inputs too",
                LEFT_INVERSE({f"n = {n}, width {n + e}": left_inverse_gap(n, e, False) for n, e in shapes}),
                "without the private-neuron hypothesis the same left inverse fails")

    rng = ctx.rng("instances")
    instances = []
    for k in range(ctx.pick(12, 40)):
        n, d = 2 + k % 3, 2 + k % 3 + k // 3 % 2
        X = E.to_exact(rng.integers(-4, 5, size=(n, d)))
        while sympy.Matrix(X).rank() < n:
            X = E.to_exact(rng.integers(-4, 5, size=(n, d)))
        Y = E.to_exact(rng.integers(-5, 6, size=(n, 1 + k % 2)))
        instances.append((X, Y, private_neuron_layer(X, n + 2 * (k % 2), rng)))
    ctx.prove("pseudo-inverse output layer, exact instances", "exact", pseudo_inverse_interpolates(instances),
              "n = 2..4 independent integer points in R^n or R^(n+1), hidden width n or n + 2, integer targets: "
              "V = Yσ(WX)^† interpolates exactly")
    X = E.to_exact([[1, 0], [2, 1]])
    shared = E.to_exact([[1, 1], [3, -1]])  # both neurons active on both inputs: no private neuron
    ctx.control("no private neuron", pseudo_inverse_interpolates([(X, E.to_exact([[1, 0], [0, 1]]),
                                                                   shared[:1].repeat(2, axis=0))]),
                "two copies of a neuron active on both inputs: σ(WX) has rank 1 and Y = I is not fitted exactly")


# -- Assumptions 1–2 and Definition 1 ---------------------------------------------------------------------
def satisfies_assumption1(Y: np.ndarray) -> bool:
    """y_1, y_2 unit vectors and linearly independent (exact for object arrays)."""
    Y = np.asarray(Y)
    if Y.dtype == object:
        return all(E.sign(y @ y - 1) == 0 for y in Y) and E.sign(sympy.Matrix(Y).det()) != 0
    return bool(np.allclose(np.linalg.norm(Y, axis=1), 1, rtol=0, atol=1e-12) and above(abs(np.linalg.det(Y)), 1e-12))


def satisfies_assumption2(X: np.ndarray) -> bool:
    """x_1, x_2 unit vectors with −1 < x_1ᵀx_2 < 0 (⇔ π/2 < ∠(x_1, x_2) < π for unit vectors)."""
    X = np.asarray(X)
    if X.dtype == object:
        inner = E.sign(X[0] @ X[1])
        return (all(E.sign(x @ x - 1) == 0 for x in X) and inner < 0
                and E.sign(X[0] @ X[1] + 1) > 0)
    return bool(np.allclose(np.linalg.norm(X, axis=1), 1, rtol=0, atol=1e-12) and -1 < X[0] @ X[1] < 0)


def assumption2_by_angle(X: np.ndarray) -> bool:
    """The definition itself: unit inputs and π/2 < ∠(x_1, x_2) < π, decided on the exact angle arccos(x_1ᵀx_2)."""
    unit = all(E.sign(x @ x - 1) == 0 for x in X)
    if not unit:
        return False
    theta = sympy.acos(sympy.nsimplify(X[0] @ X[1]))
    return bool(sympy.N(theta - sympy.pi / 2, 50) > 0 and sympy.N(sympy.pi - theta, 50) > 0)


ASSUMPTION_CASES = {  # label: (X, Y, Ass. 1 holds, Ass. 2 holds)
    "paper data": (paper_data(exact=True).X, paper_data(exact=True).Y, True, True),
    "rational obtuse": (pythagorean_data(*PYTHAGOREAN[2]).X, E.to_exact([[sympy.Rational(3, 5), sympy.Rational(4, 5)],
                                                                          [0, 1]]), True, True),
    "orthogonal inputs": (E.to_exact([[1, 0], [0, 1]]), E.to_exact([[1, 0], [0, -1]]), True, False),
    "acute inputs": (pythagorean_data(sympy.Rational(3, 5), sympy.Rational(4, 5)).X, E.to_exact([[0, 1], [1, 0]]),
                     True, False),
    "antipodal inputs, parallel targets": (E.to_exact([[1, 0], [-1, 0]]), E.to_exact([[1, 0], [-1, 0]]), False,
                                           False),
    "non-unit obtuse inputs, non-unit targets": (E.to_exact([[2, 0], [-1, 1]]), E.to_exact([[2, 0], [0, 1]]),
                                                 False, False),
}


def unit_norms_only(Y: np.ndarray) -> bool:
    """A control encoding of Assumption 1 that forgets linear independence."""
    return all(E.sign(y @ y - 1) == 0 for y in Y)


@criterion("the encoding classifies every exact case as the assumption does")
def classifies(encoding: Callable[[np.ndarray], bool], column: int, assumption: int) -> Decision:
    """``encoding`` applied to the ``column``-th entry (0: X, 1: Y) of every case against the case's label."""
    verdicts = {label: bool(encoding(case[column])) for label, case in ASSUMPTION_CASES.items()}
    wrong = [label for label, case in ASSUMPTION_CASES.items() if verdicts[label] != case[2 + assumption]]
    shown = {label: "; ".join(", ".join(map(str, row)) for row in case[column])  # the rows the encoding read
             for label, case in ASSUMPTION_CASES.items()}
    return Decision(not wrong, ", ".join(f"{k} [{shown[k]}]: {v}" for k, v in verdicts.items())
                    + (f"; misclassified: {', '.join(wrong)}" if wrong else ""),
                    {"cases": len(verdicts), "misclassified": len(wrong)})


@claim(
    id="rank.ass1",
    ref="Assumption 1, Sec. 3",
    kind="assumption",
    title="Unit, linearly independent targets",
    statement="$y_1, y_2 in SS^1$ and $y_1, y_2$ are linearly independent (so $op(\"rank\")(Y) = 2$).",
    hypotheses=["targets in R²"],
    conclusions={"the encoding decides Assumption 1 (six exact datasets)": "certified"},
    profiles={"quick": "the encoding on six exact datasets, satisfying and violating", "full": "as quick",
              "paper": "as quick"},
)
def check_ass1(ctx: Context) -> None:
    ctx.prove("encoding classifies the exact cases", "exact", classifies(satisfies_assumption1, 1, 0),
              "unit norms decided exactly (y_iᵀy_i − 1 = 0) and independence by det Y ≠ 0")
    ctx.control("independence dropped", classifies(unit_norms_only, 1, 0),
                "checking unit norms only accepts the parallel targets (y_2 = −y_1), which Assumption 1 excludes",
                because="misclassified: antipodal inputs, parallel targets")


def negative_inner_product(X: np.ndarray) -> bool:
    """A control encoding of Assumption 2 that forgets the unit norms."""
    return E.sign(X[0] @ X[1]) < 0


@claim(
    id="rank.ass2",
    ref="Assumption 2, Sec. 3",
    kind="assumption",
    title="Unit inputs at an obtuse angle",
    statement="$x_1, x_2 in SS^1$ and $pi\\/2 < angle(x_1, x_2) < pi$; equivalently, for unit inputs, "
              "$-1 < x_1^T x_2 < 0$.",
    hypotheses=["inputs in R²"],
    conclusions={"−1 < x_1ᵀx_2 < 0 ⇔ π/2 < ∠(x_1, x_2) < π for unit inputs (six exact datasets)": "certified"},
    profiles={"quick": "the inner-product encoding against the exact angle on six exact datasets",
              "full": "as quick", "paper": "as quick"},
    notes=["The paper believes the unit norms are not essential; that belief is not a claim and is not checked."],
)
def check_ass2(ctx: Context) -> None:
    ctx.prove("angle definition classifies the exact cases", "exact", classifies(assumption2_by_angle, 0, 1),
              "unit norms and the exact angle arccos(x_1ᵀx_2) compared with π/2 and π (50 digits)")
    ctx.prove("inner-product encoding classifies the exact cases", "exact", classifies(satisfies_assumption2, 0, 1),
              "arccos is strictly decreasing, so for unit vectors π/2 < ∠ < π ⇔ −1 < x_1ᵀx_2 < 0; decided exactly")
    ctx.control("unit norms dropped", classifies(negative_inner_product, 0, 1),
                "x_1ᵀx_2 < 0 alone accepts the non-unit obtuse pair (and the antipodal one, x_1ᵀx_2 = −1), which "
                "Assumption 2 excludes", because="misclassified: antipodal inputs, parallel targets, non-unit obtuse")


REGION_DEFINITIONS = {  # Definition 1 on the sign pattern (sign wᵀx_1, sign wᵀx_2)
    DEAD: lambda s: s[0] <= 0 and s[1] <= 0,
    BOTH: lambda s: s[0] > 0 and s[1] > 0,
    FIRST: lambda s: s[0] > 0 and s[1] <= 0,
    SECOND: lambda s: s[1] > 0 and s[0] <= 0,
}
RAY_OF_S1_ON_D_SIDE = (0, -1)  # the sign pattern of the ray wᵀx_1 = 0 > wᵀx_2, which Definition 1 puts in D
BOUNDARY_SWAPPED = {**REGION_DEFINITIONS,  # a control: that ray moved from D to S_1 (still a partition)
                    DEAD: lambda s: REGION_DEFINITIONS[DEAD](s) and s != RAY_OF_S1_ON_D_SIDE,
                    FIRST: lambda s: REGION_DEFINITIONS[FIRST](s) or s == RAY_OF_S1_ON_D_SIDE}
BOUNDARY_SHARED = {**REGION_DEFINITIONS,  # a control: S_1 also claims that ray, which stays in D (no partition)
                   FIRST: lambda s: REGION_DEFINITIONS[FIRST](s) or s == RAY_OF_S1_ON_D_SIDE}


def region_definitions(ray_of_s1_with: str) -> dict:
    """Definition 1 ("D"), or a control moving the ray wᵀx_1 = 0 > wᵀx_2 to S_1 ("S_1") or into both ("D and S_1")."""
    return {"D": REGION_DEFINITIONS, "S_1": BOUNDARY_SWAPPED, "D and S_1": BOUNDARY_SHARED}[ray_of_s1_with]


def realized_patterns(X: np.ndarray) -> list[tuple[int, int]]:
    """The sign patterns (sign wᵀx_1, sign wᵀx_2) ∈ {−1, 0, 1}² that some w realizes, decided exactly: X is
    invertible, so pattern s is realized by w = X⁻¹s if at all, and the signs of Xw are checked exactly."""
    inverse = sympy.Matrix(X).inv()
    found = []
    for s in itertools.product((-1, 0, 1), repeat=2):
        w = np.array(list(inverse * sympy.Matrix(s)), dtype=object)
        if tuple(E.signs(E.canonical(X @ w))) == s:
            found.append(s)
    return found


def line_pairs(X: np.ndarray, definitions: dict) -> tuple[bool, set[tuple[str, str]]]:
    """(every realizable sign pattern lies in exactly one region, the region pairs {region(w), region(−w)} over
    the realizable patterns of w ≠ 0, with 'S1°'/'S2°' marking the open sectors)."""
    patterns = realized_patterns(X)
    partition = all(sum(rule(s) for rule in definitions.values()) == 1 for s in patterns)
    pairs: set[tuple[str, str]] = set()
    # the pairs are read whether or not the regions partition (a pattern in two regions counts in the first, one in
    # none as "none"), so that the partition and the pairs each decide on their own
    for s in patterns:
        if s == (0, 0):
            continue
        labels = []
        for p in (s, tuple(-v for v in s)):
            name = next((k for k, rule in definitions.items() if rule(p)), "none")
            interior = name in (FIRST, SECOND) and 0 not in p
            labels.append(name + ("°" if interior else ""))
        pairs.add(tuple(sorted(labels)))
    return partition, pairs


ALLOWED_PAIRS = {(DEAD, BOTH), (DEAD, FIRST), (DEAD, SECOND), ("S1°", "S2°")}


def sector_rays(X: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """The boundary rays of S_j: d_j on the D side (wᵀx_j = 0 > wᵀx_k) and s_j on the S side (wᵀx_k = 0 < wᵀx_j),
    k = 3 − j (0-based j); unit when the inputs are."""
    rotate = np.array([[0, -1], [1, 0]], dtype=object)
    own, other = X[j], X[1 - j]
    d, s = rotate @ own, rotate @ other
    if E.sign(d @ other) == 0:  # d·x_k = ±det X = −s·x_j: zero exactly when the inputs are parallel
        raise ValueError("x_1 and x_2 are parallel: the sectors S_1, S_2 are empty")
    return (-d if E.sign(d @ other) > 0 else d), (-s if E.sign(s @ own) < 0 else s)


def sector_angle_is_phi(X: np.ndarray, sign: int) -> bool:
    """cos ∠(d_j, s_j) = sign · x_1ᵀx_2 exactly (sign = −1: the angle π − φ, a control) and x_j = αd_j + βs_j
    with α, β > 0 (x_j ∈ S_j° lies between the rays,
    so the sector is the convex one and its angle is ∠(d_j, s_j) = φ), for j = 1, 2."""
    for j in range(2):
        d, s = sector_rays(X, j)
        coefficients = sympy.Matrix(np.array([d, s], dtype=object).T).solve(sympy.Matrix(X[j]))
        if E.sign(d @ s - sign * (X[0] @ X[1])) != 0 or not all(E.sign(c) > 0 for c in coefficients):
            return False
    return True


DEF1_LINES = ("partition into four nonempty cones; each line meets S and D, S_j and D, or S_1° and S_2° "
              "(five exact datasets)")
DEF1_SECTORS = "S_1, S_2 have angle ∠(x_1, x_2) (five exact datasets)"


@criterion("every sign pattern is realizable and lies in one region; line pairs are {S, D}, {S_j, D}, {S_1°, S_2°}")
def region_structure(ray_of_s1_with: str, datasets: list[TwoPoints]) -> Decision:
    """``ray_of_s1_with``: the region that owns the ray wᵀx_1 = 0 > wᵀx_2 ("D": Definition 1; "S_1" or "D and
    S_1": controls)."""
    definitions = region_definitions(ray_of_s1_with)
    outcomes = [line_pairs(d.X, definitions) for d in datasets]
    nonempty = all(len(realized_patterns(d.X)) == 9 for d in datasets)  # every region has a strict pattern
    partition = all(p for p, _ in outcomes)
    pairs_ok = all(pairs == ALLOWED_PAIRS for _, pairs in outcomes)
    return Decision(partition and pairs_ok and nonempty, f"partition: {partition}; all nine patterns realizable: "
                    f"{nonempty}; line pairs as stated: {pairs_ok}", {"datasets": len(datasets)})


@criterion("cos ∠(d_j, s_j) = sign · x_1ᵀx_2 with x_j between the rays, on every dataset")
def sector_angles(sign: int, datasets: list[TwoPoints]) -> Decision:
    results = [sector_angle_is_phi(d.X, sign) for d in datasets]
    return Decision(all(results), f"{sum(results)} of {len(results)} datasets", {"datasets": len(results)})


@claim(
    id="rank.def1",
    ref="Definition 1, App. B (and Fig. 2)",
    kind="definition",
    title="The regions D, S, S_1, S_2 and the geometry Assumption 2 gives them",
    statement=("$cal(D) = {w : w^T x_1 <= 0, w^T x_2 <= 0}$, $cal(S) = {w : w^T x_1 > 0, w^T x_2 > 0}$, "
               "$cal(S)_j = {w : w^T x_j > 0 >= w^T x_(3-j)}$ partition $RR^2$ into cones; under Assumption 2 all "
               "four are nonempty, the sectors $cal(S)_j$ have angle $angle(x_1, x_2)$, and every line through 0 "
               "meets exactly two regions: $cal(S)$ and $cal(D)$, or some $cal(S)_j$ and $cal(D)$, or the open "
               "sectors of $cal(S)_1$ and $cal(S)_2$."),
    hypotheses=["Assumption 2"],
    conclusions={"partition into four nonempty cones; each line meets S and D, S_j and D, or S_1° and S_2° "
                 "(five exact datasets)": "certified",
                 "S_1, S_2 have angle ∠(x_1, x_2) (five exact datasets)": "certified"},
    profiles={"quick": "exact sign-pattern enumeration on five exact datasets; exact sector cosines",
              "full": "as quick", "paper": "as quick"},
    notes=[("The line property only uses that x_1, x_2 are linearly independent; Assumption 2 fixes the widths "
           "(S and D have angle π − φ, S_1 and S_2 angle φ).")],
)
def check_def1(ctx: Context) -> None:
    datasets = exact_obtuse_datasets()
    ctx.prove("partition, nonempty, line pairs", "exact", region_structure("D", datasets),
              "every realizable sign pattern (incl. zeros) is in exactly one region; all nine patterns are "
              "realizable, so all four regions are nonempty; {region(w), region(−w)} ranges over exactly {S, D}, "
              "{S_j, D}, {S_1°, S_2°}", conclusion=DEF1_LINES)
    ctx.control("boundary ray of S_1 moved from D to S_1", region_structure("S_1", datasets),
                "with the ray wᵀx_1 = 0 > wᵀx_2 in S_1 instead of D the regions still partition R², but the line "
                "through it meets S_1 and S_2 on their boundary, a pair the statement does not allow",
                because="partition: True; all nine patterns realizable: True; line pairs as stated: False")
    ctx.control("boundary ray of S_1 in both D and S_1", region_structure("D and S_1", datasets),
                "with the ray wᵀx_1 = 0 > wᵀx_2 in S_1 as well as in D every line still meets an allowed pair, but "
                "the regions overlap on that ray: the same test fails on the partition",
                because="partition: False; all nine patterns realizable: True; line pairs as stated: True")
    ctx.prove("sector angle of S_j is φ", "exact", sector_angles(1, datasets),
              "the boundary rays d_j, s_j of S_j (normals of x_j and x_{3−j} on the D and S sides) have cosine "
              "x_1ᵀx_2 exactly and x_j is a positive combination of them, so S_j is the convex sector of angle φ",
              conclusion=DEF1_SECTORS)
    ctx.control("sector angle π − φ", sector_angles(-1, datasets),
                "the same exact test rejects cos ∠(d_j, s_j) = −x_1ᵀx_2 (the angle of S and D)")


@criterion("∫ of the density of the folded angle difference over (π/2, π) equals the claimed probability")
def obtuse_probability(claimed: sympy.Expr) -> Decision:
    delta = sympy.Symbol("delta", real=True)
    density = 1 / (2 * sympy.pi)  # θ_1 − θ_2 mod 2π is uniform: for fixed θ_2 the shift is measure preserving
    probability = sympy.integrate(density, (delta, sympy.pi / 2, sympy.pi)) * 2  # |Δ| ∈ (π/2, π), both signs
    difference = sympy.simplify(probability - claimed)
    return Decision(difference == 0, f"∫ = {probability}, claimed {claimed}", {"probability": str(probability)})


@claim(
    id="rank.rem.unif",
    ref="Sec. 3, after Thm 2",
    kind="remark",
    title="For inputs uniform on the circle the angle condition holds with probability 1/2",
    statement=("If $x_1, x_2$ are independent and uniform on $SS^1$, then $angle(x_1, x_2)$ is uniform on "
               "$[0, pi]$ and $Pr[pi\\/2 < angle(x_1, x_2) < pi] = 1\\/2$; independent uniform targets are "
               "linearly independent with probability 1."),
    hypotheses=["independent uniform inputs (and targets) on the unit circle"],
    conclusions={"Pr[π/2 < ∠(x_1, x_2) < π] = 1/2": "certified"},
    profiles={"quick": "symbolic integral of the difference angle", "full": "as quick", "paper": "as quick"},
)
def check_unif(ctx: Context) -> None:
    ctx.prove("Pr = 1/2", "symbolic", obtuse_probability(sympy.Rational(1, 2)),
              "the folded difference |Δ| of two independent uniform angles is uniform on [0, π] (Δ uniform on "
              "(−π, π]); ∫ over π/2 < |Δ| < π gives 1/2; y_1 ∥ y_2 needs Δ ∈ {0, π}, a null set")
    ctx.control("probability 1/4", obtuse_probability(sympy.Rational(1, 4)),
                "the same integral rejects Pr = 1/4 (the value if the angle were uniform on [0, 2π))")


def stable_rank_formula(r1: sympy.Expr, r2: sympy.Expr, sine: sympy.Expr) -> sympy.Expr:
    """srank(W) = 2/(1 + sqrt(1 − 4ρ² sin² θ)), ρ = r_1 r_2/(r_1² + r_2²), for rows of norms r_1, r_2 at angle θ."""
    rho = r1 * r2 / (r1**2 + r2**2)
    return 2 / (1 + sympy.sqrt(1 - 4 * rho**2 * sine**2))


SINGULAR_VALUES = identities("the characteristic polynomial and the stable-rank closed form vanish identically")


@claim(
    id="rank.rem.approxrank",
    ref="Sec. 3, before Thm 3",
    kind="remark",
    title="For 2×2 matrices approximate rank is governed by the row norms and the angle between the rows",
    statement=("For $W in RR^(2 times 2)$ with rows of norms $r_1, r_2$ at angle $theta$: "
               "$sigma_(1,2)^2 = (F^2 plus.minus sqrt(F^4 - 4 r_1^2 r_2^2 sin^2 theta)) \\/ 2$ with "
               "$F^2 = r_1^2 + r_2^2$, and $norm(W)_F^2 \\/ norm(W)_sigma^2 = 2 \\/ (1 + sqrt(1 - 4 rho^2 sin^2 "
               "theta))$ with $rho = r_1 r_2 \\/ (r_1^2 + r_2^2)$; so $W$ is close to rank one iff its rows are "
               "nearly parallel or antiparallel, or one row is much shorter than the other."),
    hypotheses=["W ≠ 0"],
    conclusions={"σ_(1,2)² and the stable rank in terms of r_1, r_2, θ": "certified"},
    profiles={"quick": "characteristic polynomial identities", "full": "as quick", "paper": "as quick"},
)
def check_approxrank(ctx: Context) -> None:
    r1, r2 = sympy.symbols("r1 r2", positive=True)
    cosine, sine = sympy.symbols("c s", real=True)
    W = sympy.Matrix([[r1, 0], [r2 * cosine, r2 * sine]])  # any W up to a rotation of R² acting on the right
    gram = (W * W.T).subs(cosine**2, 1 - sine**2)
    F2, det2 = r1**2 + r2**2, (r1 * r2 * sine) ** 2
    lam = sympy.Symbol("lam")
    charpoly = sympy.expand((gram - lam * sympy.eye(2)).det().subs(cosine**2, 1 - sine**2)) - (lam**2 - F2 * lam
                                                                                               + det2)
    top = (F2 + sympy.sqrt(F2**2 - 4 * det2)) / 2

    def gap(angle_term: sympy.Expr) -> dict[str, sympy.Expr]:
        return {"det(WWᵀ − λI) − (λ² − F²λ + r_1²r_2² sin²θ)": charpoly,
                "F²/σ_1² − 2/(1 + sqrt(1 − 4ρ² sin²θ))": sympy.radsimp(F2 / top
                                                                       - stable_rank_formula(r1, r2, angle_term))}

    ctx.prove("σ² and stable rank from the characteristic polynomial", "symbolic", SINGULAR_VALUES(gap(sine)),
              "W = [[r_1, 0], [r_2 cos θ, r_2 sin θ]] (any W up to a rotation on the right): the roots of the "
              "characteristic polynomial of WWᵀ are σ_(1,2)², and F²/σ_1² equals the closed form")
    ctx.control("cos θ in place of sin θ", SINGULAR_VALUES(gap(cosine)),
                "the same identity check refutes the stable-rank formula with cos θ")


@criterion("at the scaled interpolant every pre-activation ≠ 0, ∇L = 0 exactly and ‖w_i‖ > Thm 2's radius")
def stationary_interpolant(output_scale: sympy.Expr, datasets: list[TwoPoints],
                           radius_scale: sympy.Expr = sympy.Integer(1)) -> Decision:
    results, norms, radii = [], [], []
    for data in datasets:
        theta = rank_one_interpolant(data) * np.array([1] * 4 + [output_scale] * 4, dtype=object)
        signs = E.signs(data.X @ theta[:4].reshape(2, 2).T)
        gradient = E.canonical(data.objective.gradient(theta))
        radius = radius_scale * thm2_radius(sympy.acos(data.X[0] @ data.X[1]), EXACT)
        outside = E.sign(neurons(theta)[0][0] @ neurons(theta)[0][0] - radius**2) > 0
        results.append((bool(np.all(signs != 0)), not np.any(E.signs(gradient)), bool(outside)))
        norms.append(float(sympy.sqrt(neurons(theta)[0][0] @ neurons(theta)[0][0])))
        radii.append(float(radius))
    return Decision(all(all(r) for r in results), "(kinks avoided, ∇L = 0, outside the radius) = "
                    + ", ".join(map(str, results)), {"instances": len(results)},
                    tightness("‖w_i‖ > min{1/2, (√3/2) cos(φ/2)} (Thm 2's radius; each dataset)", norms, radii,
                              sense="lower"))


@claim(
    id="rank.cex.thm1-stationary",
    ref="suite-derived, after Thm 1 (App. A's construction)",
    kind="construction",
    title="Thm 1's rank-one interpolant is a stationary point of gradient flow",
    statement=("At the zero-loss network of Thm 1 every pre-activation is nonzero and $nabla L = 0$, so gradient "
               "flow started there stays there with $op(\"rank\")(W(t)) = 1$; its rows have norm "
               "$sqrt(2 - 2 cos phi) > min{1\\/2, (sqrt(3)\\/2) cos(phi\\/2)}$, so Thm 2 needs its bound on the "
               "initialization."),
    hypotheses=["Assumptions 1–2"],
    conclusions={"∇L = 0 at Thm 1's interpolant, whose rows exceed Thm 2's radius (five exact datasets)":
                 "certified"},
    profiles={"quick": "exact gradients on five exact datasets", "full": "as quick", "paper": "as quick"},
)
def check_thm1_stationary(ctx: Context) -> None:
    datasets = exact_obtuse_datasets()
    stationary = stationary_interpolant(sympy.Integer(1), datasets)
    ctx.prove("exact stationarity", "exact", stationary,
              "five exact datasets: all pre-activations nonzero (the field is polynomial near θ, so the flow is "
              "unique and constant), ∇L = 0 exactly, and ‖w_i‖ exceeds Thm 2's radius")
    # at the radius check's edge: the radius enlarged until it exceeds the nearest row norm by 5 %
    enlarged = sympy.Rational(f"{1.05 / stationary.decision.tightness[0].tightest:.6f}")
    ctx.control("Thm 2's radius 5 % past the nearest row", stationary_interpolant(sympy.Integer(1), datasets,
                                                                                 enlarged),
                "the same exact check with the radius enlarged: a row norm falls inside it")
    ctx.control("output layer scaled by 1.01", stationary_interpolant(sympy.Rational(101, 100), datasets),
                "the same exact stationarity check rejects the perturbed point (∇L ≠ 0)")
