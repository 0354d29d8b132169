"""Paper 000, Sec. 2–3 and Apps. A–B: the two-point setting, its assumptions and regions, Thm 1 (rank-one
zero-loss networks exist) with Lemma 2, and the remarks around them.

Every exact check runs the engines (``numerics.networks`` / ``numerics.losses``) on object arrays of sympy
numbers, so the same code that trains the networks is what the certificates evaluate.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy

from numerics import backend as B
from numerics import exact as E
from numerics.flows import GradientFlow
from numerics.losses import Objective
from numerics.metrics import stable_rank
from numerics.networks import fully_connected
from numerics.symbolic import is_identically_zero
from theorems.rank_minimization.two_point_common import (
    BOTH,
    DEAD,
    EXACT,
    FIRST,
    SECOND,
    PatternModel,
    TwoPoints,
    construction_file_support,
    exact_rank,
    fit_output_layer,
    neurons,
    pack,
    paper_data,
    pythagorean_data,
    rank_one_interpolant,
    region,
    thm2_radius,
    uniform_directions,
)
from verify import Context, claim, histogram

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


def torch_gradient_gap(data: TwoPoints, points: list[np.ndarray]) -> float:
    """max |engine − torch autograd| of the float gradient at the points (torch's relu has derivative 0 at 0)."""
    import torch

    X, Y = (torch.tensor(B.to_float(a)) for a in (data.X, data.Y))
    objective = data.as_float().objective
    gap = 0.0
    for theta in points:
        t = torch.tensor(B.to_float(theta), requires_grad=True)
        W, V = t[:4].reshape(2, 2), t[4:].reshape(2, 2)
        loss = 0.5 * ((torch.relu(X @ W.T) @ V.T - Y) ** 2).sum()
        loss.backward()
        gap = max(gap, float(np.max(np.abs(t.grad.numpy() - objective.gradient(B.to_float(theta))))))
    return gap


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
    expected="certified",
    profiles={"quick": "every activation pattern symbolically; the engine at the 81 sign patterns (with zeros) of "
                       "an integer dataset exactly; torch autograd at the same points",
              "full": "as quick", "paper": "as quick"},
    notes=[("The paper's gradient display (Lemma 7) is the formula checked here; σ'(0) = 0 makes it the gradient "
           "of every one-sided pattern whose entry at the kink is 0.")],
)
def check_setup(ctx: Context) -> None:
    generic = PatternModel.build()
    formula = [is_identically_zero(a - b) for a, b in zip(generic.gradient(), generic.paper_gradient())]
    ctx.prove("Lemma 7's gradient formula on every activation pattern", "symbolic", all(z.proved for z in formula),
              "with σ(WX) = P ⊙ WX and σ'(WX) = P for a pattern P of free symbols (so every 0/1 pattern at once) and "
              "all entries of W, V, X, Y symbolic, the formula equals sympy's derivative of ½‖V(P ⊙ WX) − Y‖²: "
              + "; ".join(z.description for z in formula))

    data = INTEGER_DATA
    points = kink_points(data.X)
    disagreements = gradient_disagreements(data.objective, data, points)
    ctx.prove("engine = formula with σ'(0) = 0, all 81 sign patterns", "exact", disagreements == 0,
              "exact rational θ with pre-activations in {−1, 0, 1}: the engine's gradient equals the indicator "
              "formula entry by entry", {"points": len(points), "disagreements": disagreements})
    gap = torch_gradient_gap(data, points)
    ctx.support("torch autograd agrees at the kinks", "numeric", gap <= 1e-14,
                "float64 gradient against torch.relu autograd (derivative 0 at 0), tolerance 1e-14",
                {"max_abs_difference": gap})

    slope_one = Objective(fully_connected([2, 2, 2], relu_slope_at_zero=1.0), data.X, data.Y, "square")
    wrong = gradient_disagreements(slope_one, data, points)
    ctx.control("σ'(0) = 1 convention", wrong > 0,
                "the same exact comparison with a network using σ'(0) = 1 disagrees at the kinks",
                {"disagreements": wrong})


@claim(
    id="rank.claim.rankV",
    ref="Sec. 3 (before Thm 1); Eq. (9)",
    kind="remark",
    title="Zero loss on targets of rank 2 forces rank V = 2",
    statement=("If $V sigma(W X) = Y$ with $W, V in RR^(2 times 2)$ and $op(\"rank\")(Y) = 2$, then "
               "$op(\"rank\")(V) = op(\"rank\")(sigma(W X)) = 2$; so only $op(\"rank\")(W) <= 1$ can be low rank."),
    hypotheses=["2×2 matrices"],
    expected="certified",
    profiles={"quick": "det(AB) = det(A)det(B) symbolically; Thm 1's interpolants of five exact datasets",
              "full": "as quick", "paper": "as quick"},
)
def check_rank_v(ctx: Context) -> None:
    A, C = sympy.Matrix(2, 2, sympy.symbols("a:4", real=True)), sympy.Matrix(2, 2, sympy.symbols("c:4", real=True))
    product = is_identically_zero((A * C).det() - A.det() * C.det())
    ctx.prove("det(Vσ(WX)) = det V · det σ(WX)", "symbolic", product.proved,
              "for symbolic 2×2 matrices; det Y ≠ 0 then forces det V ≠ 0 and det σ(WX) ≠ 0: " + product.description)

    ranks = []
    for data in exact_obtuse_datasets():
        theta = rank_one_interpolant(data)
        _, V = theta[:4].reshape(2, 2), theta[4:].reshape(2, 2)
        ranks.append((exact_rank(data.Y), exact_rank(V), bool(np.any(E.signs(exact_residual(theta, data))))))
    consistent = all(rank_y == 2 and rank_v == 2 and not residual for rank_y, rank_v, residual in ranks)
    ctx.prove("exact interpolants have rank V = 2", "exact", consistent,
              "Thm 1's zero-loss networks of five exact datasets with rank Y = 2: rank V = 2 exactly",
              {"instances": len(ranks)})

    low = pythagorean_data(*PYTHAGOREAN[1], Y=[[1, 2], [2, 4]])
    theta = rank_one_interpolant(low)
    rank_v = exact_rank(theta[4:].reshape(2, 2))
    fits = not np.any(E.signs(exact_residual(theta, low)))
    ctx.control("targets of rank 1", fits and rank_v < 2,
                "with Y of rank 1 an exact zero-loss network has rank V = 1: the conclusion needs rank Y = 2",
                {"rank_V": rank_v, "zero_loss": fits})


# -- Thm 1 and Lemma 2 --------------------------------------------------------------------------------------
def interpolates_with_rank_one(data: TwoPoints) -> tuple[bool, int]:
    """(N(X) = Y exactly, rank W) for App. A's construction on an exact dataset."""
    theta = rank_one_interpolant(data)
    return not np.any(E.signs(exact_residual(theta, data))), exact_rank(theta[:4].reshape(2, 2))


def thm1_symbolic_proof() -> list[tuple[str, bool]]:
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
    return [(name, is_identically_zero(expr).proved) for name, expr in checks]


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
    expected="certified",
    profiles={"quick": "symbolic identities of App. A; 8 exact datasets (rationals, radicals, antipodal, acute, "
                       "Y of rank 0–2); 300 random float datasets",
              "full": "as quick with 3000 random datasets", "paper": "as full"},
    notes=[("Strict positivity of w_1ᵀx_1 and −w_1ᵀx_2 is the equality case of Cauchy–Schwarz: by Lagrange's "
           "identity x_1ᵀx_2 = ‖x_1‖‖x_2‖ only for positively parallel inputs, i.e. angle 0.")],
)
def check_thm1(ctx: Context) -> None:
    steps = thm1_symbolic_proof()
    ctx.prove("App. A identities", "symbolic", all(ok for _, ok in steps),
              "with symbolic inputs: " + "; ".join(f"{name}: {'proved' if ok else 'FAILED'}" for name, ok in steps),
              {"identities": len(steps)})

    exact_cases = [pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5), [[2, -1], [sympy.Rational(1, 3), 7]]),
                   TwoPoints(E.to_exact([[3, 4], [-5, 12]]) / np.array([[5], [13]]),
                             E.to_exact([[2, -1], [sympy.Rational(1, 3), 7]]), "(3/5, 4/5), (−5/13, 12/13)"),
                   TwoPoints(E.to_exact([[1, 2], [3, -1]]), E.to_exact([[1, 0], [0, 1]]), "non-unit, radicals"),
                   TwoPoints(E.to_exact([[2, 1], [-4, -2]]), E.to_exact([[1, 2], [3, 4]]), "antipodal (angle π)"),
                   TwoPoints(E.to_exact([[1, 0], [1, 1]]), E.to_exact([[1, 2], [2, 4]]), "acute, rank-1 Y"),
                   TwoPoints(E.to_exact([[1, 0], [1, 1]]), E.to_exact([[0, 0], [0, 0]]), "acute, Y = 0"),
                   paper_data(exact=True), pythagorean_data(*PYTHAGOREAN[3])]
    results = [interpolates_with_rank_one(data) for data in exact_cases]
    ctx.prove("exact instances", "exact", all(fit and rank == 1 for fit, rank in results),
              "engine in exact arithmetic: N(X) = Y and rank W = 1 for " + ", ".join(d.label for d in exact_cases),
              {"instances": len(results)})

    rng = ctx.rng("datasets")
    count = ctx.pick(300, 3000)
    worst_residual, worst_rank = 0.0, 0.0
    for _ in range(count):
        angle = rng.uniform(1e-3, np.pi)
        base = rng.uniform(0, 2 * np.pi)
        X = np.array([[np.cos(base), np.sin(base)], [np.cos(base + angle), np.sin(base + angle)]])
        X *= np.exp(rng.uniform(-3, 3, size=(2, 1)))
        Y = rng.normal(size=(2, 2)) @ np.diag(rng.integers(0, 2, size=2) + (rng.uniform() < 0.5))
        data = TwoPoints(X, Y * np.exp(rng.uniform(-2, 2)))
        theta = rank_one_interpolant(data)
        residual = float(np.linalg.norm(data.objective.residuals(theta)))
        singular = np.linalg.svd(theta[:4].reshape(2, 2), compute_uv=False)
        worst_residual = max(worst_residual, residual / (1 + np.linalg.norm(data.Y)))
        worst_rank = max(worst_rank, singular[1] / singular[0])
    ctx.support("random datasets", "numeric", worst_residual <= 1e-12 and worst_rank <= 1e-14,
                f"{count} float datasets (angles in [1e-3, π], norms e^±3, Y of rank 0–2): "
                "‖N(X) − Y‖ ≤ 1e-12(1 + ‖Y‖) and σ_2(W) ≤ 1e-14 σ_1(W)",
                {"datasets": count, "max_relative_residual": worst_residual, "max_sigma2_over_sigma1": worst_rank})

    construction_file_support(ctx, "rank_thm1.toml")

    parallel = TwoPoints(E.to_exact([[1, 2], [2, 4]]), E.to_exact([[1, 0], [0, 1]]), "angle 0")
    fit, _ = interpolates_with_rank_one(parallel)
    sign = sympy.Symbol("u", positive=True)
    c = sympy.Symbol("c", positive=True)
    # with x_2 = c x_1 (c > 0), σ(wᵀx_2) = c σ(wᵀx_1) for each sign of wᵀx_1: the rows of σ(XWᵀ) are proportional
    proportional = all(is_identically_zero(sympy.Max(c * z, 0) - c * sympy.Max(z, 0)).proved
                       for z in (sign, -sign, sympy.S.Zero))
    ctx.control("angle 0", not fit and proportional,
                "x_2 = 2x_1, Y = I: the construction gives w_1 = 0 and misses Y exactly, and no network fits since "
                "σ(c z) = c σ(z) (c > 0) makes σ(WX) rank ≤ 1 for every W", {"construction_fits": fit})


def private_neuron_layer(X: np.ndarray, hidden: int, rng: np.random.Generator) -> np.ndarray:
    """An exact hidden layer where neuron j is active on x_j alone (w_jᵀx_l = 2δ_jl − 1) and the remaining neurons
    are random integer vectors (Lemma 2's hypothesis; X square and invertible)."""
    n = X.shape[0]
    inverse = sympy.Matrix(X).inv()
    rows = [list(inverse * sympy.Matrix([1 if k == j else -1 for k in range(n)])) for j in range(n)]
    rows += [[sympy.Integer(int(v)) for v in rng.integers(-3, 4, size=n)] for _ in range(hidden - n)]
    return np.array(rows, dtype=object)


def lemma2_fits(X: np.ndarray, Y: np.ndarray, W: np.ndarray) -> bool:
    """Whether V = Y σ(WX)^† interpolates (exact), with the engine's network of the matching widths."""
    data = TwoPoints(X, Y)
    V = fit_output_layer(W, data)
    network = fully_connected([X.shape[1], W.shape[0], Y.shape[1]])
    residual = network.forward(np.concatenate([W.ravel(), V.ravel()]), X) - Y
    return not np.any(E.signs(E.canonical(residual)))


@claim(
    id="rank.lem2",
    ref="Lemma 2, App. A",
    kind="lemma",
    title="A private active neuron for every input lets the output layer interpolate",
    statement=("If for every input $x_j$ some row $w_i$ of $W in RR^(d_h times d)$ has $w_i^T x_j > 0$ and "
               "$w_i^T x_l <= 0$ for all $l != j$, then for every $Y in RR^(d_o times n)$ some $V$ gives "
               "$N_(W,V)(X) = Y$ (the proof takes $V = Y sigma(W X)^dagger$)."),
    hypotheses=["n inputs, any widths"],
    expected="certified",
    profiles={"quick": "symbolic left inverse for n ∈ {2, 3}, hidden width n or n + 2; 12 exact random instances; "
                       "a shared-neuron control", "full": "as quick with 40 exact instances", "paper": "as full"},
    notes=[("The symbolic proof uses the left inverse that reads each input's private neuron (V selects those "
           "rows, scaled by 1/σ(w_iᵀx_i)); the paper's pseudo-inverse V is checked on the exact instances.")],
)
def check_lem2(ctx: Context) -> None:
    proofs = []
    for n, extra in itertools.product((2, 3), (0, 2)):
        hidden = n + extra
        H = sympy.Matrix(hidden, n, lambda i, j: sympy.Symbol(f"h{i}{j}", nonnegative=True))
        for j in range(n):  # rows 0..n−1 are the private neurons: active on x_j only
            for k in range(n):
                H[j, k] = sympy.Symbol(f"d{j}", positive=True) if k == j else 0
        left = sympy.zeros(n, hidden)
        for j in range(n):
            left[j, j] = 1 / H[j, j]
        proofs.append(is_identically_zero(left * H - sympy.eye(n)).proved)
    ctx.prove("left inverse through the private neurons", "symbolic", all(proofs),
              "σ(WX) has a positive diagonal block on the private neurons, so V = Y·(their rows scaled by 1/d_j) "
              "gives Vσ(WX) = Y; identity proved for n ∈ {2, 3} with hidden width n and n + 2, all other "
              "activations free", {"shapes": len(proofs)})

    rng = ctx.rng("instances")
    instances = ctx.pick(12, 40)
    fits = 0
    for k in range(instances):
        n = 2 + k % 3
        X = E.to_exact(rng.integers(-4, 5, size=(n, n)))
        while sympy.Matrix(X).det() == 0:
            X = E.to_exact(rng.integers(-4, 5, size=(n, n)))
        Y = E.to_exact(rng.integers(-5, 6, size=(n, 1 + k % 2)))
        fits += lemma2_fits(X, Y, private_neuron_layer(X, n + 2 * (k % 2), rng))
    ctx.prove("pseudo-inverse output layer, exact instances", "exact", fits == instances,
              "integer inputs (n = 2..4), hidden width n or n + 2, integer targets: V = Yσ(WX)^† interpolates "
              "exactly", {"instances": instances, "interpolating": fits})

    X = E.to_exact([[1, 0], [2, 1]])
    shared = E.to_exact([[1, 1], [3, -1]])  # both neurons active on both inputs: no private neuron
    control = lemma2_fits(X, E.to_exact([[1, 0], [0, 1]]), shared[:1].repeat(2, axis=0))
    ctx.control("no private neuron", not control,
                "two copies of a neuron active on both inputs: σ(WX) has rank 1 and Y = I is not fitted exactly",
                {"fits": control})


# -- Assumptions 1–2 and Definition 1 ---------------------------------------------------------------------
def satisfies_assumption1(Y: np.ndarray) -> bool:
    """y_1, y_2 unit vectors and linearly independent (exact for object arrays)."""
    Y = np.asarray(Y)
    if Y.dtype == object:
        return all(E.sign(y @ y - 1) == 0 for y in Y) and E.sign(sympy.Matrix(Y).det()) != 0
    return bool(np.allclose(np.linalg.norm(Y, axis=1), 1, atol=1e-12) and abs(np.linalg.det(Y)) > 1e-12)


def satisfies_assumption2(X: np.ndarray) -> bool:
    """x_1, x_2 unit vectors with −1 < x_1ᵀx_2 < 0 (⇔ π/2 < ∠(x_1, x_2) < π for unit vectors)."""
    X = np.asarray(X)
    if X.dtype == object:
        inner = E.sign(X[0] @ X[1])
        return (all(E.sign(x @ x - 1) == 0 for x in X) and inner < 0
                and E.sign(X[0] @ X[1] + 1) > 0)
    return bool(np.allclose(np.linalg.norm(X, axis=1), 1, atol=1e-12) and -1 < X[0] @ X[1] < 0)


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


@claim(
    id="rank.ass1",
    ref="Assumption 1, Sec. 3",
    kind="assumption",
    title="Unit, linearly independent targets",
    statement="$y_1, y_2 in SS^1$ and $y_1, y_2$ are linearly independent (so $op(\"rank\")(Y) = 2$).",
    hypotheses=["targets in R²"],
    expected="certified",
    profiles={"quick": "the encoding on six exact datasets, satisfying and violating", "full": "as quick",
              "paper": "as quick"},
)
def check_ass1(ctx: Context) -> None:
    verdicts = {label: satisfies_assumption1(Y) for label, (_, Y, _, _) in ASSUMPTION_CASES.items()}
    expected = {label: holds for label, (_, _, holds, _) in ASSUMPTION_CASES.items()}
    ctx.prove("encoding classifies the exact cases", "exact", verdicts == expected,
              "unit norms decided exactly (y_iᵀy_i − 1 = 0) and independence by det Y ≠ 0: "
              + ", ".join(f"{k}: {v}" for k, v in verdicts.items()), {"cases": len(verdicts)})
    grid_ok = satisfies_assumption1(np.array([[1.0, 0.0], [np.cos(0.7), np.sin(0.7)]]))
    ctx.support("float targets of the spec's grid", "numeric", grid_ok, "rows e_1 and (cos 0.7, sin 0.7)")
    unit_only = {label: all(E.sign(y @ y - 1) == 0 for y in Y) for label, (_, Y, _, _) in ASSUMPTION_CASES.items()}
    ctx.control("independence dropped", unit_only != expected,
                "checking unit norms only accepts the parallel targets (y_2 = −y_1), which Assumption 1 excludes",
                {"misclassified": sum(unit_only[k] != expected[k] for k in expected)})


@claim(
    id="rank.ass2",
    ref="Assumption 2, Sec. 3",
    kind="assumption",
    title="Unit inputs at an obtuse angle",
    statement="$x_1, x_2 in SS^1$ and $pi\\/2 < angle(x_1, x_2) < pi$; equivalently, for unit inputs, "
              "$-1 < x_1^T x_2 < 0$.",
    hypotheses=["inputs in R²"],
    expected="certified",
    profiles={"quick": "the inner-product encoding against the exact angle on six exact datasets",
              "full": "as quick", "paper": "as quick"},
    notes=["The paper believes the unit norms are not essential; that belief is not a claim and is not checked."],
)
def check_ass2(ctx: Context) -> None:
    encoded = {label: satisfies_assumption2(X) for label, (X, _, _, _) in ASSUMPTION_CASES.items()}
    by_angle = {label: assumption2_by_angle(X) for label, (X, _, _, _) in ASSUMPTION_CASES.items()}
    expected = {label: holds for label, (_, _, _, holds) in ASSUMPTION_CASES.items()}
    ctx.prove("inner-product encoding = angle definition", "exact", encoded == by_angle == expected,
              "arccos is strictly decreasing, so for unit vectors π/2 < ∠ < π ⇔ −1 < x_1ᵀx_2 < 0; both decided "
              "exactly on every case: " + ", ".join(f"{k}: {v}" for k, v in encoded.items()),
              {"cases": len(encoded)})
    sign_only = {label: E.sign(X[0] @ X[1]) < 0 for label, (X, _, _, _) in ASSUMPTION_CASES.items()}
    ctx.control("unit norms dropped", sign_only != expected,
                "x_1ᵀx_2 < 0 alone accepts the non-unit obtuse pair, which Assumption 2 excludes",
                {"misclassified": sum(sign_only[k] != expected[k] for k in expected)})


REGION_DEFINITIONS = {  # Definition 1 on the sign pattern (sign wᵀx_1, sign wᵀx_2)
    DEAD: lambda s: s[0] <= 0 and s[1] <= 0,
    BOTH: lambda s: s[0] > 0 and s[1] > 0,
    FIRST: lambda s: s[0] > 0 and s[1] <= 0,
    SECOND: lambda s: s[1] > 0 and s[0] <= 0,
}
BOUNDARY_SWAPPED = {**REGION_DEFINITIONS, FIRST: lambda s: s[0] >= 0 and s[1] < 0}  # a control


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
    if not partition:
        return False, pairs
    for s in patterns:
        if s == (0, 0):
            continue
        labels = []
        for p in (s, tuple(-v for v in s)):
            name = next(k for k, rule in definitions.items() if rule(p))
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
    return (-d if E.sign(d @ other) > 0 else d), (-s if E.sign(s @ own) < 0 else s)


def sector_angle_is_phi(X: np.ndarray) -> bool:
    """cos ∠(d_j, s_j) = x_1ᵀx_2 exactly and x_j = αd_j + βs_j with α, β > 0 (x_j ∈ S_j° lies between the rays,
    so the sector is the convex one and its angle is ∠(d_j, s_j) = φ), for j = 1, 2."""
    for j in range(2):
        d, s = sector_rays(X, j)
        coefficients = sympy.Matrix(np.array([d, s], dtype=object).T).solve(sympy.Matrix(X[j]))
        if E.sign(d @ s - X[0] @ X[1]) != 0 or not all(E.sign(c) > 0 for c in coefficients):
            return False
    return True


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
    expected="certified",
    profiles={"quick": "exact sign-pattern enumeration (hyperplane arrangement LP) on five exact datasets; exact "
                       "sector cosines; 2·10⁵ random directions for the region frequencies",
              "full": "as quick with 2·10⁶ directions", "paper": "as full"},
    notes=[("The line property only uses that x_1, x_2 are linearly independent; Assumption 2 fixes the widths "
           "(S and D have angle π − φ, S_1 and S_2 angle φ).")],
)
def check_def1(ctx: Context) -> None:
    datasets = exact_obtuse_datasets()
    outcomes = [line_pairs(data.X, REGION_DEFINITIONS) for data in datasets]
    nonempty = all(len(realized_patterns(d.X)) == 9 for d in datasets)  # every region has a strict pattern
    ctx.prove("partition, nonempty, line pairs", "exact",
              all(partition and pairs == ALLOWED_PAIRS for partition, pairs in outcomes) and nonempty,
              "every realizable sign pattern (incl. zeros) is in exactly one region; all nine patterns are "
              "realizable, so all four regions are nonempty; {region(w), region(−w)} ranges over exactly {S, D}, "
              "{S_j, D}, {S_1°, S_2°}", {"datasets": len(outcomes)})
    widths = [sector_angle_is_phi(d.X) for d in datasets]
    ctx.prove("sector angle of S_j is φ", "exact", all(widths),
              "the boundary rays d_j, s_j of S_j (normals of x_j and x_{3−j} on the D and S sides) have cosine "
              "x_1ᵀx_2 exactly and x_j is a positive combination of them, so S_j is the convex sector of angle φ",
              {"datasets": len(widths)})

    data = paper_data().as_float()
    count = ctx.pick(200_000, 2_000_000)
    directions = uniform_directions(ctx.rng("directions"), (count,))
    regions = region(directions, data.X)
    phi = data.phi
    widths_expected = {DEAD: np.pi - phi, BOTH: np.pi - phi, FIRST: phi, SECOND: phi}
    deviations = {k: abs(np.mean(regions == k) - w / (2 * np.pi)) / np.sqrt(0.25 / count)
                  for k, w in widths_expected.items()}
    ctx.support("region frequencies", "numeric", max(deviations.values()) <= 4,
                f"{count} uniform directions on the Sec. 3.1 data: frequencies within 4σ of width/2π",
                {f"z_{k}": v for k, v in deviations.items()},
                plot=histogram("Polar angle of random directions by region",
                               {k: np.arctan2(directions[regions == k][:4000, 1], directions[regions == k][:4000, 0])
                                for k in widths_expected}, xlabel="polar angle (rad)"))

    partition, _ = line_pairs(datasets[0].X, BOUNDARY_SWAPPED)
    ctx.control("boundary ray of S_1 assigned to D as well", not partition,
                "moving the ray wᵀx_1 = 0 into S_1 makes it belong to S_1 and D: the same partition check fails",
                {"partition": partition})


@claim(
    id="rank.rem.unif",
    ref="Sec. 3, after Thm 2",
    kind="remark",
    title="For inputs uniform on the circle the angle condition holds with probability 1/2",
    statement=("If $x_1, x_2$ are independent and uniform on $SS^1$, then $angle(x_1, x_2)$ is uniform on "
               "$[0, pi]$ and $Pr[pi\\/2 < angle(x_1, x_2) < pi] = 1\\/2$; independent uniform targets are "
               "linearly independent with probability 1."),
    hypotheses=["independent uniform inputs (and targets) on the unit circle"],
    expected="certified",
    profiles={"quick": "symbolic integral of the difference angle; 2·10⁵ Monte Carlo pairs",
              "full": "2·10⁶ pairs", "paper": "as full"},
)
def check_unif(ctx: Context) -> None:
    delta = sympy.Symbol("delta", real=True)
    density = 1 / (2 * sympy.pi)  # θ_1 − θ_2 mod 2π is uniform: for fixed θ_2 the shift is measure preserving
    probability = sympy.integrate(density, (delta, sympy.pi / 2, sympy.pi)) * 2  # |Δ| ∈ (π/2, π), both signs
    ctx.prove("Pr = 1/2", "symbolic", sympy.simplify(probability - sympy.Rational(1, 2)) == 0,
              "the folded difference |Δ| of two independent uniform angles is uniform on [0, π] (Δ uniform on "
              "(−π, π]); ∫ over π/2 < |Δ| < π gives 1/2; y_1 ∥ y_2 needs Δ ∈ {0, π}, a null set",
              {"probability": str(probability)})
    count = ctx.pick(200_000, 2_000_000)
    rng = ctx.rng("pairs")
    x1, x2 = uniform_directions(rng, (count,)), uniform_directions(rng, (count,))
    inner = np.sum(x1 * x2, axis=1)
    estimate = float(np.mean(inner < 0))
    tolerance = 4 * np.sqrt(0.25 / count)
    ctx.support("Monte Carlo", "numeric", abs(estimate - 0.5) <= tolerance,
                f"{count} pairs: |p̂ − 1/2| ≤ 4σ", {"estimate": estimate, "tolerance": tolerance},
                plot=histogram("Angle between two uniform unit vectors", {"angle": np.arccos(inner[:20000])},
                               xlabel="angle (rad)", reference={"π/2": np.pi / 2}))
    ctx.control("probability 1/4", abs(estimate - 0.25) > tolerance,
                "the same Monte Carlo test rejects Pr = 1/4 (the value if the angle were uniform on [0, 2π))",
                {"estimate": estimate})


def stable_rank_formula(r1: sympy.Expr, r2: sympy.Expr, sine: sympy.Expr) -> sympy.Expr:
    """srank(W) = 2/(1 + sqrt(1 − 4ρ² sin² θ)), ρ = r_1 r_2/(r_1² + r_2²), for rows of norms r_1, r_2 at angle θ."""
    rho = r1 * r2 / (r1**2 + r2**2)
    return 2 / (1 + sympy.sqrt(1 - 4 * rho**2 * sine**2))


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
    expected="certified",
    profiles={"quick": "characteristic polynomial identities; 2000 random matrices against the SVD",
              "full": "20000 random matrices", "paper": "as full"},
)
def check_approxrank(ctx: Context) -> None:
    r1, r2 = sympy.symbols("r1 r2", positive=True)
    cosine, sine = sympy.symbols("c s", real=True)
    W = sympy.Matrix([[r1, 0], [r2 * cosine, r2 * sine]])  # any W up to a rotation of R² acting on the right
    gram = (W * W.T).subs(cosine**2, 1 - sine**2)
    F2, det2 = r1**2 + r2**2, (r1 * r2 * sine) ** 2
    lam = sympy.Symbol("lam")
    charpoly = is_identically_zero(sympy.expand((gram - lam * sympy.eye(2)).det().subs(cosine**2, 1 - sine**2))
                                   - (lam**2 - F2 * lam + det2))
    top = (F2 + sympy.sqrt(F2**2 - 4 * det2)) / 2
    srank = is_identically_zero(sympy.radsimp(F2 / top - stable_rank_formula(r1, r2, sine)))
    ctx.prove("σ² and stable rank from the characteristic polynomial", "symbolic", charpoly.proved and srank.proved,
              "det(WWᵀ − λI) = λ² − F²λ + r_1²r_2² sin²θ (" + charpoly.description + "); F²/σ_1² equals the "
              "closed form (" + srank.description + ")")

    rng = ctx.rng("matrices")
    count = ctx.pick(2000, 20000)
    worst = 0.0
    for _ in range(count):
        M = rng.normal(size=(2, 2)) * np.exp(rng.uniform(-2, 2, size=(2, 1)))
        norms = np.linalg.norm(M, axis=1)
        s = np.sqrt(max(0.0, 1 - (M[0] @ M[1] / (norms[0] * norms[1])) ** 2))
        rho = norms[0] * norms[1] / (norms @ norms)
        worst = max(worst, abs(stable_rank(M) - 2 / (1 + np.sqrt(1 - 4 * rho**2 * s**2))) / stable_rank(M))
    ctx.support("random matrices", "numeric", worst <= 1e-10,
                f"{count} random W (row scales e^±2): closed form vs SVD stable rank, relative error ≤ 1e-10",
                {"max_relative_error": worst})
    wrong = is_identically_zero(sympy.radsimp(F2 / top - stable_rank_formula(r1, r2, cosine)))
    ctx.control("cos θ in place of sin θ", not wrong.proved,
                "the same identity check does not prove the formula with cos θ: " + wrong.description)


@claim(
    id="rank.cex.thm1-stationary",
    ref="suite-derived (spec extra, after Thm 1)",
    kind="construction",
    title="Thm 1's rank-one interpolant is a stationary point of gradient flow",
    statement=("At the zero-loss network of Thm 1 every pre-activation is nonzero and $nabla L = 0$, so gradient "
               "flow started there stays there with $op(\"rank\")(W(t)) = 1$; its rows have norm "
               "$sqrt(2 - 2 cos phi) > min{1\\/2, (sqrt(3)\\/2) cos(phi\\/2)}$, so Thm 2 needs its bound on the "
               "initialization."),
    hypotheses=["Assumptions 1–2"],
    expected="certified",
    profiles={"quick": "exact gradients on five exact datasets; float gradient flow to t = 100 on the paper's data",
              "full": "as quick", "paper": "as quick"},
)
def check_thm1_stationary(ctx: Context) -> None:
    results = []
    for data in exact_obtuse_datasets():
        theta = rank_one_interpolant(data)
        signs = E.signs(data.X @ theta[:4].reshape(2, 2).T)
        gradient = E.canonical(data.objective.gradient(theta))
        radius = thm2_radius(sympy.acos(data.X[0] @ data.X[1]), EXACT)
        outside = E.sign(neurons(theta)[0][0] @ neurons(theta)[0][0] - radius**2) > 0
        results.append((bool(np.all(signs != 0)), not np.any(E.signs(gradient)), bool(outside)))
    ctx.prove("exact stationarity", "exact", all(all(r) for r in results),
              "five exact datasets: all pre-activations nonzero (the field is polynomial near θ, so the flow is "
              "unique and constant), ∇L = 0 exactly, and ‖w_i‖ exceeds Thm 2's radius",
              {"instances": len(results)})
    data = paper_data().as_float()
    theta = rank_one_interpolant(data)
    run = GradientFlow(data.objective).solve(theta, 100.0)
    drift = float(np.max(np.abs(run.final - theta)))
    ctx.support("float flow stays", "numeric", drift <= 1e-12, "gradient flow to t = 100 moves θ by ≤ 1e-12",
                {"max_drift": drift})

    exact = paper_data(exact=True)
    moved = rank_one_interpolant(exact) * np.array([1] * 4 + [sympy.Rational(101, 100)] * 4, dtype=object)
    gradient = E.canonical(exact.objective.gradient(moved))
    ctx.control("output layer scaled by 1.01", bool(np.any(E.signs(gradient))),
                "the same exact stationarity check rejects the perturbed point (∇L ≠ 0)")
