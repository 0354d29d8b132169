"""Assumptions 1–3, the constant D, and Appendix A of Ji & Telgarsky (what Assumption 2 allows and excludes)."""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
import sympy
from sympy.calculus.util import continuous_domain

from numerics import backend as B
from numerics import exact as E
from numerics.losses import Objective, margin_loss
from numerics.networks import Network
from numerics.symbolic import certify_rational_positive, gradient_flow, is_identically_zero, lie_derivative
from numerics.tolerances import above, at_least, at_most
from numerics.trends import is_monotone, log_spaced
from theorems.layer_alignment.common import (
    Dataset,
    admissible_initialization,
    chain,
    ds2,
    ds3,
    ds_random,
    initialization_constant,
    initialization_constants,
    linear_network,
    loss_at_zero,
    max_margin_direction,
    risk,
    run_flow,
    satisfies_assumption2,
    spans_space,
)
from theorems.layer_alignment.conservation import gram_gap
from theorems.layer_alignment.criteria import Named, zero_decision
from verify import Context, Decision, claim, criterion, histogram, line, tightness

# -- align.asm1 ------------------------------------------------------------------------------------------------

X = sympy.Symbol("x", real=True)
U = sympy.Symbol("u", positive=True)


@dataclass(frozen=True)
class LossFormula:
    """A loss ℓ(x) with a substitution x = φ(u), u ∈ (0, ∞), onto R that makes −ℓ'(φ(u)) rational in u."""

    name: str
    value: sympy.Expr
    substitution: sympy.Expr


LOSS_FORMULAS = {
    "exponential": LossFormula("exponential", sympy.exp(-X), -sympy.log(U)),
    "logistic": LossFormula("logistic", sympy.log(1 + sympy.exp(-X)), -sympy.log(U)),
    "polynomial-tail": LossFormula("polynomial-tail", sympy.sqrt(1 + X ** 2) - X, (U - 1 / U) / 2),
}
NON_EXAMPLES = {
    "hinge max(0, 1 − x)": LossFormula("hinge", sympy.Max(0, 1 - X), -sympy.log(U)),
    "squared (1 − x)²": LossFormula("squared", (1 - X) ** 2, -sympy.log(U)),
    "e^{−x} + 1": LossFormula("shifted exponential", sympy.exp(-X) + 1, -sympy.log(U)),
}


@dataclass(frozen=True)
class Assumption1Check:
    """Each property: True (proved), False (refuted) or None (sympy could not decide)."""

    derivative_continuous: bool | None
    strictly_decreasing: bool | None  # −ℓ' > 0 on R: Sturm certificate after the substitution, or an exact point
    unbounded_left: bool | None  # ℓ → ∞ as x → −∞
    vanishing_right: bool | None  # ℓ → 0 as x → ∞

    @property
    def holds(self) -> bool | None:
        values = list(vars(self).values())
        if any(value is False for value in values):
            return False
        return True if all(value is True for value in values) else None


TEST_POINTS = (-2, 0, 2, 5)  # exact points where a non-decreasing loss is caught


def check_assumption1(loss: LossFormula) -> Assumption1Check:
    derivative = sympy.diff(loss.value, X)
    try:
        domain = continuous_domain(derivative, X, sympy.S.Reals)
        continuous = True if domain == sympy.S.Reals else (False if domain.is_subset(sympy.S.Reals) else None)
    except NotImplementedError:  # sympy cannot decide (e.g. the Heaviside in the hinge's derivative)
        continuous = None
    decreasing: bool | None = None
    for point in TEST_POINTS:  # a point with −ℓ'(x) ≤ 0, evaluated exactly, refutes strict decrease
        slope_at = sympy.simplify(-derivative.subs(X, point))
        if slope_at.is_nonpositive:
            decreasing = False
    if decreasing is None:
        # factor(deep=True) exposes perfect squares under roots, e.g. 1 + x(u)² = ((u² + 1)/(2u))²
        slope = sympy.simplify(sympy.factor(-derivative.subs(X, loss.substitution), deep=True))
        try:
            decreasing = True if certify_rational_positive(slope, U, 0, sympy.oo).certified else None
        except ValueError:  # not a rational function of u after the substitution: no certificate
            decreasing = None
    return Assumption1Check(continuous, decreasing, _limit_is(loss.value, -sympy.oo, sympy.oo),
                            _limit_is(loss.value, sympy.oo, 0))


def _limit_is(expr: sympy.Expr, point: sympy.Expr, target: sympy.Expr) -> bool | None:
    """Whether sympy proves lim_{x→point} expr = target; None when it cannot compute the limit (sympy's Gruntz
    algorithm raises on some piecewise expressions such as the hinge)."""
    try:
        value = sympy.limit(expr, X, point)
    except (NotImplementedError, TypeError, ValueError):
        return None
    if value == target:
        return True
    return False if value.is_number or value.is_infinite else None


@criterion("ℓ' continuous on R, −ℓ' > 0 on R (Sturm after a rationalizing substitution; the exact points "
           f"{', '.join(map(str, TEST_POINTS))} refute), ℓ(−∞) = ∞, ℓ(∞) = 0 (sympy)")
def satisfies_assumption1(loss: LossFormula):
    result = check_assumption1(loss)
    shown = {key: "undecided" if value is None else value for key, value in vars(result).items()}
    refuted = [key for key, value in vars(result).items() if value is False]
    undecided = [key for key, value in vars(result).items() if value is None]
    detail = (f"ℓ = {loss.value}" + (f": refutes {', '.join(refuted)}" if refuted else "")
              + (f"; undecided: {', '.join(undecided)}" if undecided else ""))
    return Decision(result.holds, detail, shown)


@claim(
    id="align.asm1",
    ref="Assumption 1, Sec. 1.2",
    kind="assumption",
    title="Losses: continuously differentiable, strictly decreasing, unbounded, vanishing at infinity",
    statement=("The loss $ell$ has a continuous derivative with $ell' < 0$ everywhere, $ell(x) -> oo$ as "
               "$x -> -oo$ and $ell(x) -> 0$ as $x -> oo$; the exponential and logistic losses satisfy it (and so "
               "does the polynomial-tail test loss $sqrt(1 + x^2) - x$)."),
    hypotheses=["margin losses of one real variable"],
    conclusions={"the exponential, logistic and polynomial-tail losses satisfy Assumption 1": "certified"},
    profiles={"quick": "sympy: continuity of ℓ', Sturm certificate of −ℓ' > 0 after a rationalizing substitution, "
                       "both limits, for 3 losses; the same criterion on 3 non-examples",
              "full": "as quick", "paper": "as quick"},
    notes=[("The printed text's symbols ℓ', ∞ and the arrows are hard to read ('< 0 is continuous, limx- (x) = and "
            "limx (x) = 0'); the reading is forced by the prose 'continuously differentiable, unbounded, and "
            "strictly decreasing to 0'."),
           "The polynomial-tail loss is not in the paper: a test case for the scope of Theorems 1 and 2."],
)
def check_asm1(ctx: Context) -> None:
    for name, formula in LOSS_FORMULAS.items():
        ctx.prove(f"{name} loss", "symbolic", satisfies_assumption1(formula),
                  f"−ℓ'(x(u)) > 0 on u ∈ (0, ∞) with x = {formula.substitution} (Sturm)")
    for name, formula in NON_EXAMPLES.items():
        ctx.control(f"non-example: {name}", satisfies_assumption1(formula), f"loss: {name}")


# -- align.asm2 ------------------------------------------------------------------------------------------------

ASSUMPTION2_DIGITS = 40  # the working precision of the reference decision of Assumption 2


def high_precision_assumption2(objective: Objective, theta: np.ndarray) -> bool:
    """Assumption 2 decided from an ASSUMPTION2_DIGITS-digit evaluation of R(W(0)) and ∇R(W(0))."""
    with mpmath.workdps(ASSUMPTION2_DIGITS):
        exact = Objective(objective.model, B.to_object(objective.X, "mp"), B.to_object(objective.Y, "mp"),
                          objective.loss, mean=True)
        point = B.to_object(theta, "mp")
        value = exact.value(point)
        gradient = mpmath.sqrt(sum(g ** 2 for g in exact.gradient(point)))
        zero_loss = margin_loss(objective.loss).value(B.to_object(np.zeros(1), "mp")).item()
        return bool(gradient > mpmath.mpf("1e-10") and value <= zero_loss)


def app_a_counter_initialization(width: int, scale: float) -> tuple[Objective, np.ndarray]:
    """App. A's two-layer example: one data point z = 1, exponential loss, w_1(0) = −w_2(0) = scale·(1, …, 1)/√m."""
    net = linear_network((1, width, 1))
    objective = Objective(net, np.ones((1, 1)), np.ones(1), "exponential", mean=True)
    a = np.full(width, scale / np.sqrt(width))
    return objective, np.concatenate([a, -a])


def _risk_condition_dropped(objective: Objective, theta: np.ndarray) -> bool:
    """A wrong test of Assumption 2 for the control: only ∇R(W(0)) ≠ 0."""
    return above(float(np.linalg.norm(objective.gradient(theta))), 1e-10)


def _criticality_dropped(objective: Objective, theta: np.ndarray) -> bool:
    """A wrong test of Assumption 2 for the control: only R(W(0)) ≤ ℓ(0)."""
    return float(objective.value(theta)) <= loss_at_zero(objective.loss)


@criterion(f"a float64 test of Assumption 2 gives the {ASSUMPTION2_DIGITS}-digit decision on every init")
def decides_assumption2(test, inits: Named):
    wrong = [label for label, objective, theta, truth in inits.value if test(objective, theta) != truth]
    accepted = sum(truth for *_, truth in inits.value)
    return (not wrong, f"{len(inits.value) - len(wrong)}/{len(inits.value)} agree ({accepted} satisfy it)"
            + (f"; disagrees on {wrong[:3]}" if wrong else ""),
            {"inits": len(inits.value), "accepted": accepted, "disagreements": len(wrong)})


@claim(
    id="align.asm2",
    ref="Assumption 2, Sec. 1.2",
    kind="assumption",
    title="Initialization: not critical, and no worse than the zero predictor",
    statement="The initialization satisfies $nabla R(W(0)) != 0$ and $R(W(0)) <= R(0) = ell(0)$.",
    hypotheses=["any network, data and loss"],
    conclusions={f"the suite's float64 test of Assumption 2 decides it as {ASSUMPTION2_DIGITS}-digit arithmetic does "
                 "(random Gaussian inits on DS3, the critical point W = 0, App. A's init)": "confirmed"},
    profiles={"quick": f"the suite's test of Assumption 2 against {ASSUMPTION2_DIGITS}-digit evaluations at 40 "
                       "Gaussian inits (scales 0.3 and 0.6) on DS3 × 2 losses, the critical point W = 0 and App. A's "
                       "bad init; the same criterion on tests that drop one condition",
              "full": "as quick with 200 inits", "paper": "as full"},
    notes=["The printed text reads '∇R(W(0)) = 0'; the prose says 'not a critical point', so the relation is ≠."],
)
def check_asm2(ctx: Context) -> None:
    data = ds3()
    net = linear_network((3, 3, 3, 1))
    cases, scales = [], []
    for loss in ("logistic", "exponential"):
        objective = risk(net, data, loss)
        for index in range(ctx.pick(40, 200)):
            scales.append(0.3 if index % 2 else 0.6)
            theta = scales[-1] * ctx.rng(f"init-{loss}-{index}").normal(size=net.n_params)
            cases.append((f"{loss} {index}", objective, theta, high_precision_assumption2(objective, theta)))
    objective = risk(net, data, "logistic")
    origin = np.zeros(net.n_params)
    cases.append(("critical point W = 0", objective, origin, high_precision_assumption2(objective, origin)))
    width, scale = 2, np.sqrt(0.5)
    counter, counter_theta = app_a_counter_initialization(width, scale)
    counter_risk = float(counter.value(counter_theta))
    cases.append((f"App. A init, R(W(0)) = {counter_risk:.4g} > ℓ(0)", counter, counter_theta,
                  high_precision_assumption2(counter, counter_theta)))
    gaussian = ", ".join(f"{scales.count(s)} of scale {s:g}" for s in sorted(set(scales)))
    inits = Named(f"{len(cases)} inits: Gaussian on DS3 ({gaussian}), W = 0, App. A's with m = {width} "
                  f"(R(W(0)) = {counter_risk:.4g})", cases)
    ctx.support(f"decision against {ASSUMPTION2_DIGITS}-digit evaluation", "numeric",
                decides_assumption2(satisfies_assumption2, inits),
                f"the float64 test against {ASSUMPTION2_DIGITS}-digit arithmetic")
    ctx.control("test without the risk condition", decides_assumption2(_risk_condition_dropped, inits),
                "R(W(0)) ≤ ℓ(0) dropped: App. A's init is accepted")
    ctx.control("test without the critical-point condition", decides_assumption2(_criticality_dropped, inits),
                "∇R(W(0)) ≠ 0 dropped: W = 0 is accepted")


# -- align.asm3 ------------------------------------------------------------------------------------------------

def _subspace_dataset(rng: np.random.Generator, n: int) -> tuple[Dataset, np.ndarray]:
    """Separable points of a random 2-D subspace of R³ (Assumption 3 fails in R³, holds in the subspace)."""
    planar = ds_random(rng, n, 2)
    basis = np.linalg.qr(rng.normal(size=(3, 2)))[0]
    return Dataset("planar data in R³", planar.Z @ basis.T), basis


def ds_one_support_vector() -> Dataset:
    """d = 2 with a single support vector (0.5, 0): Assumption 3 fails."""
    exact = np.array([[sympy.Rational(v) for v in row] for row in (("1/2", "0"), ("9/10", "3/10"),
                                                                  ("9/10", "-3/10"))], dtype=object)
    return Dataset("one support vector in R²", B.to_float(exact), exact)


def ds_repeated_support_vector() -> Dataset:
    """d = 2 with the support vector (1/2, 0) given twice: |S| = d = 2 with positive duals, but rank 1 (a data set
    no density draws)."""
    exact = np.array([[sympy.Rational(v) for v in row] for row in (("1/2", "0"), ("1/2", "0"), ("9/10", "3/10"),
                                                                  ("9/10", "-3/10"))], dtype=object)
    return Dataset("repeated support vector in R²", B.to_float(exact), exact)


def ds_zero_dual() -> Dataset:
    """d = 2 with (1/2, 1/5) exactly on the margin of ū = (1, 0) set by (1/2, 0): |S| = d = 2 and the support vectors
    span R², but the dual of (1/2, 1/5) is 0 (a data set no density draws)."""
    exact = np.array([[sympy.Rational(v) for v in row] for row in (("1/2", "0"), ("1/2", "1/5"), ("9/10", "-3/10"))],
                     dtype=object)
    return Dataset("zero dual in R²", B.to_float(exact), exact)


@criterion("certified SVM whose support vectors have exact rank d")
def spans(data: Dataset):
    svm = max_margin_direction(data)
    if not svm.certified:
        return None, "SVM not certified"
    return spans_space(data, svm), f"support vectors {svm.support}, d = {data.d}"


@criterion("every data set has |S| ≤ d + excess; those with |S| = d have full exact rank and positive certified duals")
def generic_support(data_sets: Named, excess: int):
    ok, violations = True, 0
    for data in data_sets.value:
        svm = max_margin_direction(data)
        if len(svm.support) == data.d:
            ok &= spans_space(data, svm) and svm.certified and bool(np.all(svm.duals[list(svm.support)] > 0))
        ok &= len(svm.support) <= data.d + excess
        violations += not spans_space(data, svm)
    return ok, f"{violations} data sets violate Assumption 3 (|S| < d)", {"violations": violations}


@criterion("max_t |⟨rows of W_1(t) − W_1(0), direction⟩| ≤ 1e-9 along the flow")
def constant_along(run: Named, direction: np.ndarray):
    values = np.array([s.layers[0] @ direction for s in run.value.states])
    drift = float(np.max(np.abs(values - values[0])))
    limit = 1e-9
    return at_most(drift, limit), f"max drift {drift:.3g} (threshold {limit:g})", {"max_drift": drift}




@claim(
    id="align.asm3",
    ref="Assumption 3 and the remarks after it, Sec. 2.2",
    kind="assumption",
    title="Support vectors span the input space",
    statement=("The support vectors ${z_i : i in S}$ of the max-margin problem span $RR^d$. For data drawn from a "
               "density this holds almost surely when there are $d$ support vectors (there are at most $d$); it can "
               "be relaxed to 'the support vectors span the span of the data', since gradient flow never leaves it."),
    hypotheses=["linearly separable data"],
    conclusions={
        "support vectors span R^d (DS2 and DS3, exact)": "certified",
        "almost surely |S| ≤ d, and |S| = d ⇒ the support vectors span R^d (random data, d = 2, 3, 5)": "confirmed",
        "relaxed: the component of W_1 off the data span is constant along gradient flow (planar data in R³)":
            "confirmed",
    },
    profiles={"quick": "exact rank of the certified support vectors of DS2 and DS3; 12 random data sets each for "
                       "d ∈ {2, 3, 5} (n = 20): |S| ≤ d, and |S| = d ⇒ full rank and positive duals; the relaxation "
                       "on planar data in R³ (the off-span part of W_1 is constant along the flow)",
              "full": "as quick with 150 data sets per dimension", "paper": "as full"},
    notes=[("'Almost surely true if the number of support vectors is ≥ d' must mean '= d': almost surely |S| ≤ d "
           "(Soudry et al., Lemma 8), which the Monte Carlo confirms."),
           ("Assumption 3 is a genuine restriction: random data sets with fewer than d support vectors occur with "
            "positive probability and are counted below.")],
)
def check_asm3(ctx: Context) -> None:
    examples, generic, relaxed = ctx.conclusions
    for data in (ds2(), ds3()):
        ctx.prove(f"{data.name} satisfies it", "exact", spans(data), "exact rank of the certified support vectors",
                  conclusion=examples)
    ctx.control("one support vector in R²", spans(ds_one_support_vector()), "a data set with |S| = 1 < d = 2")
    sizes, drawn = {}, []
    for d in (2, 3, 5):
        for index in range(ctx.pick(12, 150)):
            data = ds_random(ctx.rng(f"data-{d}-{index}"), 20, d)
            drawn.append(data)
            sizes.setdefault(d, []).append(len(max_margin_direction(data).support))
    named = Named(f"{len(drawn)} random data sets (n = 20, d = 2, 3, 5)", drawn)
    ctx.support("random data: |S| ≤ d, and |S| = d spans", "numeric", generic_support(named, 0),
                "every random data set has at most d support vectors; those with exactly d have full exact rank and "
                "strictly positive certified duals",
                {f"mean_support_size_d{d}": float(np.mean(v)) for d, v in sizes.items()},
                plot=histogram("Number of support vectors (n = 20)", {f"d = {d}": v for d, v in sizes.items()},
                               xlabel="|S|"), conclusion=generic)
    ctx.control("|S| ≤ d − 1", generic_support(named, -1), "wrong bound: |S| < d claimed for every data set")
    # data no density draws: |S| = d and the other conditions hold, but the support vectors do not span R²
    repeated = Named("a point given twice", [ds_repeated_support_vector()])
    ctx.control("a repeated support vector", generic_support(repeated, 0),
                "the random data replaced by a data set with a point given twice")
    ctx.control("a support vector with zero dual", generic_support(Named("a zero dual", [ds_zero_dual()]), 0),
                "the random data replaced by a data set with a point exactly on the margin whose dual is 0",
                because="0 data sets violate Assumption 3")
    rng = ctx.rng("planar")
    data, basis = _subspace_dataset(rng, 12)
    net = linear_network((3, 3, 1))
    objective = risk(net, data, "logistic")
    run = run_flow("planar", objective, admissible_initialization(objective, rng, 0.5), log_spaced(1e-2, 1e8, 21))
    flow = Named(f"flow on planar data in R³ to t = {run.t[-1]:g}, {run.t.size - 1} log-spaced checkpoints from "
                 f"t = {run.t[1]:g}", run)
    ctx.support("relaxation: the flow stays in the data span", "numeric",
                constant_along(flow, np.cross(basis[:, 0], basis[:, 1])),
                "planar data in R³: the component of W_1's rows orthogonal to the data plane", conclusion=relaxed)
    ctx.control("in-plane component", constant_along(flow, basis[:, 0]),
                "direction: the normal of the data plane → a direction in it (not covered by the relaxation)")


# -- align.def.D -----------------------------------------------------------------------------------------------

PYTHAGOREAN_UNITS = [(sympy.Rational(3, 5), sympy.Rational(4, 5)), (sympy.Rational(5, 13), sympy.Rational(12, 13)),
                     (sympy.Rational(8, 17), sympy.Rational(-15, 17)), (sympy.Rational(-7, 25), sympy.Rational(24, 25))]


def rational_balanced_layers(scale: sympy.Rational, units: list[tuple]) -> list[np.ndarray]:
    """W_k = s·u_k u_{k−1}ᵀ with rational unit vectors u_0, …, u_{L−1} ∈ R² and u_L = 1 (exact)."""
    vectors = [np.array(u, dtype=object)[:, None] for u in units] + [np.array([[sympy.Integer(1)]])]
    return [scale * vectors[k + 1] @ vectors[k].T for k in range(len(vectors) - 1)]


def exact_constant_lower_bound(layers: list[np.ndarray]) -> sympy.Expr:
    """An exact lower bound on D: max_k F_k² − F_L² + Σ_k max_ij |A_ij| (as ‖A‖_2 ≥ max_ij |A_ij|), with equality
    to D whenever every A_{k,k+1} = 0."""
    squares = [sum(W.ravel() ** 2) for W in layers]
    gaps = [max(abs(entry) for entry in gram_gap(layers, k).ravel()) for k in range(1, len(layers))]
    return sympy.nsimplify(max(squares) - squares[-1] + sum(gaps))


BALANCED_DEPTHS = (2, 3, 4)  # the rational balanced inits, one per depth L
FLOAT_D_TOLERANCE = 1e-14  # the float64 D of a balanced rational init of scale ≤ 1: rounding only


@criterion("every A_(k,k+1) is exactly 0 and the exact lower bound on D is 0; the float64 D is ≤ "
           f"{FLOAT_D_TOLERANCE:g}")
def exact_constant_zero(layers: list[np.ndarray]):
    # the bound is max_k F_k² − F_L² ≥ 0 plus one max |entry| ≥ 0 per A_(k,k+1): it is 0 exactly when every A is 0
    value = exact_constant_lower_bound(layers)
    as_float = initialization_constant([B.to_float(W) for W in layers])
    return (value == 0 and at_most(abs(as_float), FLOAT_D_TOLERANCE), f"exact D ≥ {value}",
            {"exact_lower_bound": str(value), "float_D": as_float})


@criterion("tr A_(k,k+1) = ‖W_k‖_F² − ‖W_(k+1)‖_F² identically (explicit symbolic entries)")
def trace_identity(sign: int):
    layers = [sympy.Matrix(3, 2, sympy.symbols("a0:6", real=True)),
              sympy.Matrix(1, 3, sympy.symbols("b0:3", real=True))]
    squares = [sum(e ** 2 for e in W) for W in layers]
    trace = sympy.Matrix(gram_gap(layers, 1)).trace()
    return zero_decision(is_identically_zero(-trace - sign * (squares[0] - squares[1])))


def _constant_without_gaps(layers: list[np.ndarray]) -> float:
    """A wrong D for the control: max_k ‖W_k(0)‖_F² − ‖W_L(0)‖_F² without the sum of ‖A_(k,k+1)‖_2."""
    squares = [float(np.sum(W ** 2)) for W in layers]
    return max(squares) - squares[-1]


def _constant_lowered(layers: list[np.ndarray]) -> float:
    """A wrong D for the control at the tolerance's edge: D − 1e-9."""
    return initialization_constant(layers) - 1e-9


def _constant_below_zero(layers: list[np.ndarray]) -> float:
    """A wrong D for the control of D ≥ 0: D − 1e-13, within the 1e-12 allowance of D_k ≤ D."""
    return initialization_constant(layers) - 1e-13


@criterion("D ≥ 0 and D_k ≤ D (to 1e-12) on every init")
def constant_bounds(inits: Named, constant):
    worst_sign, worst_order = np.inf, np.inf
    per_layer, overall = [], []
    for layers in inits.value:
        D = constant(layers)
        worst_sign = min(worst_sign, D)
        worst_order = min(worst_order, float(np.min(D - initialization_constants(layers))))
        per_layer.append(np.maximum(initialization_constants(layers), 0.0))
        overall.append(np.full(len(layers), float(D)))
    return Decision(worst_sign >= 0 and at_least(worst_order, -1e-12),
                    f"min D {worst_sign:.3g}, min D − D_k {worst_order:.3g}",
                    {"min_D": worst_sign, "min_D_minus_D_k": worst_order},
                    tightness("D_k ≤ D (eq. (8); each layer of each init, D_k below 0 counted as 0)",
                              np.concatenate(per_layer), np.concatenate(overall)))


@claim(
    id="align.def.D",
    ref="Definition of D, Sec. 2.1",
    kind="definition",
    title="The initialization constant D vanishes for balanced initializations",
    statement=("$D := max_k norm(W_k (0))_F^2 - norm(W_L (0))_F^2 + sum_(k=1)^(L-1) norm(W_k (0) W_k (0)^T - "
               "W_(k+1)(0)^T W_(k+1)(0))_2 >= 0$; if $W_k (0) W_k (0)^T = W_(k+1)(0)^T W_(k+1)(0)$ for all $k < L$ "
               "then $D = 0$."),
    hypotheses=["any initialization of a deep linear network with $d_L = 1$"],
    conclusions={
        "balanced ⇒ D = 0 (trace identity on widths (2,3,1); exact D = 0 for rational balanced inits, L = "
        f"{', '.join(map(str, BALANCED_DEPTHS))})":
            "certified",
        "D ≥ 0 and D_k ≤ D (200 random inits of random depths and widths)": "confirmed",
    },
    profiles={"quick": "sympy trace identity; D = 0 exactly for 3 rational balanced inits; D ≥ 0 and D_k ≤ D on "
                       "200 random inits", "full": "as quick", "paper": "as quick"},
)
def check_def_D(ctx: Context) -> None:
    balanced_zero, nonnegative = ctx.conclusions
    ctx.prove("tr A_(k,k+1) = ‖W_k‖_F² − ‖W_(k+1)‖_F²", "symbolic", trace_identity(1),
              "so A_(k,k+1) = 0 for all k forces equal Frobenius norms and D = 0", conclusion=balanced_zero)
    ctx.control("trace with the wrong sign", trace_identity(-1), "tr A = ‖W_(k+1)‖_F² − ‖W_k‖_F²")
    for index, depth in enumerate(BALANCED_DEPTHS):
        scale = sympy.Rational(3 + index, 4)
        ctx.prove(f"balanced rational init, L = {depth}", "exact",
                  exact_constant_zero(rational_balanced_layers(scale, PYTHAGOREAN_UNITS[:depth])),
                  f"W_k = {scale}·u_k u_(k−1)ᵀ with rational unit u_k", conclusion=balanced_zero)

    def broken_by(amount: sympy.Rational) -> list:
        """The L = 3 balanced init of scale 3/4 with one entry of W_2 moved by ``amount``."""
        layers = rational_balanced_layers(sympy.Rational(3, 4), PYTHAGOREAN_UNITS[:3])
        layers[1] = layers[1].copy()
        layers[1][0, 0] += amount
        return layers

    ctx.control("balance broken by 1/1000", exact_constant_zero(broken_by(sympy.Rational(1, 1000))),
                "one entry of W_2 moved by 1/1000")
    ctx.control("balance broken by 1e-30", exact_constant_zero(broken_by(sympy.Rational(1, 10**30))),
                "one entry of W_2 moved by 10⁻³⁰: lost in float64 (D ≈ 1e-16), so only the exact bound sees it")
    ctx.control("balanced at scale 1000, in float64", exact_constant_zero(
        rational_balanced_layers(sympy.Integer(1000), PYTHAGOREAN_UNITS[:3])),
                f"W_k = 1000·u_k u_(k−1)ᵀ: exactly balanced, but its float64 D (about 3e-10) exceeds "
                f"{FLOAT_D_TOLERANCE:g}: the float check is a check")
    inits = []
    for index in range(200):
        rng = ctx.rng(f"random-{index}")
        widths = [int(w) for w in rng.integers(1, 5, size=int(rng.integers(2, 5)))] + [1]
        inits.append([rng.normal(size=(widths[k + 1], widths[k])) for k in range(len(widths) - 1)])
    named = Named("200 random inits of random depths and widths", inits)
    ctx.support("D ≥ 0 and D_k ≤ D", "numeric", constant_bounds(named, initialization_constant),
                "Gaussian layers", conclusion=nonnegative)
    ctx.control("D without the gap terms", constant_bounds(named, _constant_without_gaps),
                "the sum of ‖A_(k,k+1)‖_2 dropped from D: D_k ≤ D fails")
    ctx.control("D lowered by 1e-9", constant_bounds(named, _constant_lowered),
                "D − 1e-9: D_k ≤ D fails by 1e-9 (above the 1e-12 rounding allowance) where W_1 has the largest "
                "norm, so D_1 = D")
    balanced = Named(f"{len(BALANCED_DEPTHS)} balanced rational inits in float64 (L = "
                     f"{', '.join(map(str, BALANCED_DEPTHS))})",
                     [[B.to_float(W) for W in rational_balanced_layers(sympy.Rational(3 + index, 4),
                                                                       PYTHAGOREAN_UNITS[:depth])]
                      for index, depth in enumerate(BALANCED_DEPTHS)])
    ctx.control("D lowered by 1e-13 on balanced inits", constant_bounds(balanced, _constant_below_zero),
                "D − 1e-13 where D = 0 up to rounding: below 0, yet D_k ≤ D within the 1e-12 allowance (D_L = 0)")


# -- align.rem.A-init -------------------------------------------------------------------------------------------

@criterion("∂R/∂W_1 at W_1 = 0 equals ℓ'(0)(W_L⋯W_2)ᵀ z̄ᵀ identically, z̄ the mean of the given points (generic "
           "loss ℓ, symbolic layers and points)")
def gradient_at_zero_first_layer(widths: tuple[int, ...], n: int, averaged: str):
    layers = [sympy.Matrix(widths[k + 1], widths[k], sympy.symbols(f"w{k}_0:{widths[k] * widths[k + 1]}", real=True))
              for k in range(len(widths) - 1)]
    ell, q = sympy.Function("ell"), sympy.Symbol("q", real=True)
    points = [sympy.Matrix(sympy.symbols(f"z{i}_0:{widths[0]}", real=True)) for i in range(n)]
    w = chain(layers).T
    objective = sum(ell(w.dot(z)) for z in points) / n
    at_zero = {entry: 0 for entry in layers[0]}
    gradient = layers[0].applyfunc(lambda entry: sympy.diff(objective, entry).subs(at_zero).doit())
    used = points if averaged == "all points" else points[:1]
    mean = sum(used, sympy.zeros(widths[0], 1)) / len(used)
    expected = sympy.diff(ell(q), q).subs(q, 0) * chain(layers[1:]).T * mean.T
    return zero_decision(is_identically_zero(gradient - expected))


@criterion("exact ⟨z̄, ū⟩ ≥ factor·γ > 0 (certified SVM)")
def mean_margin_at_least(data: Dataset, factor: int):
    svm = max_margin_direction(data)
    if not svm.certified:
        return None, "SVM not certified"
    mean_margin = E.dot(np.mean(data.exact_Z, axis=0), svm.exact_direction)
    gamma = svm.reference.certificate.margin
    return Decision(E.sign(mean_margin - factor * gamma) >= 0, f"⟨z̄, ū⟩ = {mean_margin}, γ = {gamma}",
                    {"mean_margin": float(mean_margin), "gamma": float(gamma)},
                    tightness("⟨z̄, ū⟩ ≥ γ", float(mean_margin), float(factor * gamma), sense="lower"))


ZERO_LAYER_TIMES = (1e-2, 1e4, 13)  # the flows of align.rem.A-init: log-spaced checkpoints (first, last, count)


def with_zero_layers(net: Network, theta: np.ndarray, count: int) -> np.ndarray:
    """A copy of θ with W_1, …, W_count set to 0."""
    zeroed = theta.copy()
    zeroed[:sum(net.sizes[:count])] = 0.0
    return zeroed


@criterion("every init satisfies Assumption 2 with R(W(0)) = ℓ(0), and gradient flow from the first of each data set "
           f"decreases the risk at every checkpoint ({ZERO_LAYER_TIMES[2]} log-spaced on [{ZERO_LAYER_TIMES[0]:g}, "
           f"{ZERO_LAYER_TIMES[1]:g}] after t = 0)")
def first_layer_zero_admissible(cases: Named):
    satisfied, decreasing, flows, final = 0, True, 0, []
    for objective, theta, flow_it in cases.value:
        satisfied += (satisfies_assumption2(objective, theta)
                      and float(objective.value(theta)) == loss_at_zero(objective.loss))
        if flow_it:
            flows += 1
            run = run_flow("W_1(0) = 0", objective, theta, log_spaced(*ZERO_LAYER_TIMES))
            decreasing &= bool(is_monotone(run.risks, "decreasing") and run.risks[-1] < run.risks[0])
            final.append(float(run.risks[-1]))
    total = len(cases.value)
    return (satisfied == total and decreasing, f"{satisfied}/{total} satisfy it; flows decrease the risk: {decreasing}",
            {"instances": total, "satisfied": satisfied, "flows": flows}
            | ({"largest_final_risk": max(final)} if final else {}))


@claim(
    id="align.rem.A-init",
    ref="App. A, first paragraph (and Sec. 1.2 after Assumption 2)",
    kind="remark",
    title="W_1(0) = 0 with a nonzero product of the other layers satisfies Assumption 2",
    statement=("If $W_1(0) = 0$ and $W_L (0) dots.c W_2(0) != 0$ then $R(W(0)) = ell(0)$ and "
               "$partial R slash partial W_1 = ell'(0) (W_L (0) dots.c W_2(0))^T macron(z)^T != 0$ with "
               "$macron(z) = 1/n sum_i z_i$, because $chevron.l macron(z), macron(u) chevron.r >= gamma > 0$."),
    hypotheses=["Assumption 1", "linearly separable data"],
    conclusions={
        "∂R/∂W_1 = ℓ'(0)(W_L⋯W_2)ᵀz̄ᵀ at W_1 = 0 (widths (2,2,2,1) and (3,2,1), n = 3, any loss)": "certified",
        "⟨z̄, ū⟩ ≥ γ > 0 (DS2 and DS3, exact)": "certified",
        "random inits with W_1(0) = 0 satisfy Assumption 2 with R(W(0)) = ℓ(0)": "confirmed",
    },
    profiles={"quick": "sympy gradient at W_1 = 0 (generic loss); exact ⟨z̄, ū⟩ ≥ γ on DS2, DS3; 40 random "
                       "instances on 4 data sets × 2 losses, gradient flow from 4 of them",
              "full": "as quick with 200 random instances", "paper": "as full"},
    notes=[("The printed text reads 'W_L(0)⋯W_2(0) = 0'; the ≠ is forced by the argument: with = 0 every layer "
            "gradient vanishes, which is this claim's negative control."),
           "⟨z̄, ū⟩ ≥ γ holds for all separable data (every ⟨z_i, ū⟩ ≥ γ); it is checked exactly on DS2 and DS3."],
)
def check_rem_a_init(ctx: Context) -> None:
    formula, margin, instances = ctx.conclusions
    for widths in ((2, 2, 2, 1), (3, 2, 1)):
        ctx.prove(f"gradient at W_1 = 0, widths {widths}", "symbolic",
                  gradient_at_zero_first_layer(widths, 3, "all points"), "generic loss, 3 symbolic points",
                  conclusion=formula)
    ctx.control("first point in place of the mean", gradient_at_zero_first_layer((3, 2, 1), 3, "first point"),
                "z_1 in place of z̄")
    for data in (ds2(), ds3()):
        ctx.prove(f"{data.name}: ⟨z̄, ū⟩ ≥ γ", "exact", mean_margin_at_least(data, 1), "so ∇R(0) ≠ 0",
                  conclusion=margin)
    ctx.control("⟨z̄, ū⟩ ≥ 2γ", mean_margin_at_least(ds3(), 2), "wrong constant: γ → 2γ")
    cases, stuck, unzeroed = [], [], []
    datasets = [ds2(), ds3(), ds_random(ctx.rng("data-0"), 10, 3), ds_random(ctx.rng("data-1"), 10, 4)]
    hidden, unzeroed_scale = (3, 2), 1.0
    for data in datasets:
        net = linear_network((data.d, *hidden, 1))
        for loss in ("logistic", "exponential"):
            objective = risk(net, data, loss)
            # a Gaussian W_1(0) ≠ 0 redrawn until Assumption 2 holds: then R(W(0)) < ℓ(0)
            unzeroed.append((objective, admissible_initialization(
                objective, ctx.rng(f"{data.name}-{loss}-admissible"), unzeroed_scale), loss == "logistic"))
            for index in range(ctx.pick(5, 25)):
                theta = with_zero_layers(net, ctx.rng(f"{data.name}-{loss}-{index}").normal(size=net.n_params), 1)
                cases.append((objective, theta, index == 0 and loss == "logistic"))
                if index == 0:
                    both = with_zero_layers(net, theta, 2)  # W_1 = W_2 = 0: the product W_3W_2 vanishes too
                    stuck.append((objective, both, loss == "logistic"))
    shape = f"widths (d, {', '.join(map(str, hidden))}, 1)"
    ctx.support("random instances", "numeric",
                first_layer_zero_admissible(Named(f"{len(cases)} random inits with W_1(0) = 0, {shape}, on "
                                                  f"{', '.join(data.name for data in datasets)}", cases)),
                "random Gaussian layers above W_1, 4 data sets × 2 losses", conclusion=instances)
    ctx.control("also W_L⋯W_2 = 0", first_layer_zero_admissible(Named(f"{len(stuck)} inits with W_1 = W_2 = 0, "
                                                                       f"{shape}", stuck)),
                "the hypothesis W_L(0)⋯W_2(0) ≠ 0 dropped: every layer gradient is 0, Assumption 2 fails")
    ctx.control("W_1(0) ≠ 0", first_layer_zero_admissible(Named(f"{len(unzeroed)} Gaussian inits of scale "
                                                                 f"{unzeroed_scale:g} satisfying Assumption 2, "
                                                                 f"W_1 not zeroed, {shape}", unzeroed)),
                "the hypothesis W_1(0) = 0 dropped: Assumption 2 holds and the flows decrease the risk, but "
                "R(W(0)) ≠ ℓ(0)", because="flows decrease the risk: True")


# -- align.rem.A-counter ----------------------------------------------------------------------------------------

@criterion("on w_2 = −w_1 + offset·e_1: d(w_1 + w_2)/dt = R·(w_1 + w_2), R = e^{‖w_1‖²}, ds/dt = −2s e^s for "
           "s = ‖w_1‖², and d E_1(s)/dt = rate (sympy)")
def invariant_line_law(m: int, offset: int, rate: int):
    w1 = sympy.Matrix(sympy.symbols(f"a0:{m}", real=True))
    w2 = sympy.Matrix(sympy.symbols(f"b0:{m}", real=True))
    objective = sympy.exp(-w1.dot(w2))
    field = gradient_flow(objective, [w1, w2])
    line_point = dict(zip(w2, -w1 + offset * sympy.eye(m)[:, 0]))
    invariance = is_identically_zero(field[0] + field[1] - objective * (w1 + w2))
    on_line = is_identically_zero(objective.subs(line_point) - sympy.exp(w1.dot(w1)))
    t = sympy.Symbol("t")
    s = sympy.Function("s")(t)
    law = is_identically_zero(sympy.simplify(lie_derivative(w1.dot(w1), [w1, w2], field).subs(line_point)
                                             - (-2 * w1.dot(w1) * sympy.exp(w1.dot(w1)))))
    e1_derivative = is_identically_zero(sympy.simplify(sympy.diff(sympy.expint(1, s), t).subs(
        sympy.Derivative(s, t), -2 * s * sympy.exp(s)) - rate))
    tests = {"invariance": invariance, "R on the line": on_line, "law of s": law, "E_1 rate": e1_derivative}
    refuted = [name for name, test in tests.items() if test.refuted]
    if refuted:
        return False, f"refuted: {', '.join(refuted)}"
    if all(test.proved for test in tests.values()):
        return True, "all four identities proved"
    return None, "not all identities decided"


@claim(
    id="align.rem.A-counter",
    ref="App. A, second paragraph",
    kind="construction",
    title="With R(W(0)) > ℓ(0) gradient flow can fail to minimize the risk",
    statement=("Two layers $w_1, w_2 in RR^m$, one data point $z = 1$ and $R = exp(-chevron.l w_1, w_2 chevron.r)$: if "
               "$w_1(0) = -w_2(0) != 0$ then $R(W(0)) = e^(norm(w_1(0))^2) > e^0$, and for all $t$, "
               "$w_1(t) = -w_2(t)$ and $R(W(t)) >= e^0 > 0$. Exactly, $s = norm(w_1)^2$ solves "
               "$E_1(s(t)) = E_1(s(0)) + 2 t$, so $s -> 0$ and the flow converges to the saddle $W = 0$."),
    hypotheses=["exponential loss", "Assumption 2's risk condition violated"],
    conclusions={"w_1 = −w_2 persists, R ≥ e^0 on it, and E_1(s(t)) = E_1(s(0)) + 2t (m = 2, 3)": "certified"},
    profiles={"quick": "sympy: invariance of w_1 + w_2 = 0 and the E_1 law for m = 2, 3; the flow from a perturbed "
                       "init by LSODA to t = 60, shown with the control",
              "full": "as quick", "paper": "as quick"},
    notes=["The closed form with the exponential integral E_1 is the suite's, not the paper's; s → 0 follows from it "
           "since E_1(s(t)) → ∞.",
           "D = 0 here (w_1 w_1ᵀ and w_2 w_2ᵀ agree), so the failure is due to R(W(0)) > ℓ(0) alone."],
)
def check_rem_a_counter(ctx: Context) -> None:
    for m in (2, 3):
        ctx.prove(f"invariant line and exact law, m = {m}", "symbolic", invariant_line_law(m, 0, 2),
                  "d(w_1 + w_2)/dt = R·(w_1 + w_2), so w_1 + w_2 = 0 persists (uniqueness); on it R = e^{‖w_1‖²} ≥ 1, "
                  "ds/dt = −2s e^s for s = ‖w_1‖², and d E_1(s)/dt = 2")
    ctx.control("law with rate 1", invariant_line_law(2, 0, 1), "E_1(s(t)) = E_1(s(0)) + t")
    times = np.linspace(0.0, 60.0, 121)
    counter, theta0 = app_a_counter_initialization(2, float(np.sqrt(0.5)))
    perturbed = theta0 + 1e-6 * ctx.rng("perturbation").normal(size=theta0.size)
    run_exact = run_flow("invariant line", counter, theta0, times)
    run_perturbed = run_flow("perturbed", counter, perturbed, times)
    ctx.control("off the invariant line", invariant_line_law(2, 1, 2),
                "w_2(0) = −w_1(0) + e_1: R is not e^{‖w_1‖²} there (the plot: a 1e-6 perturbation escapes the saddle)",
                figures={"perturbed_risk_at_60": float(run_perturbed.risks[-1]),
                         "line_risk_min": float(run_exact.risks.min())},
                plot=line("App. A example: risk along the flow", {
                    "w_1(0) = −w_2(0)": (times[1:], run_exact.risks[1:]),
                    "perturbed by 1e-6": (times[1:], run_perturbed.risks[1:])},
                    xlabel="t", ylabel="R(W(t))", yscale="log"))
