"""Assumptions 1–3, the constant D, and Appendix A of Ji & Telgarsky (what Assumption 2 allows and excludes)."""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
import sympy
from sympy.calculus.util import continuous_domain

from numerics import backend as B
from numerics import exact as E
from numerics import hp_ode
from numerics.losses import Objective, margin_loss
from numerics.symbolic import certify_rational_positive, gradient_flow, is_identically_zero, lie_derivative
from numerics.trends import is_monotone, log_spaced
from theorems.layer_alignment.common import (
    POLYNOMIAL_TAIL,
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
from verify import Context, claim, histogram, line

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
    derivative_continuous: bool
    strictly_decreasing: bool  # −ℓ' > 0 on R, certified by Sturm counting after the substitution
    unbounded_left: bool  # ℓ → ∞ as x → −∞
    vanishing_right: bool  # ℓ → 0 as x → ∞

    @property
    def holds(self) -> bool:
        return self.derivative_continuous and self.strictly_decreasing and self.unbounded_left and self.vanishing_right


def check_assumption1(loss: LossFormula) -> Assumption1Check:
    derivative = sympy.diff(loss.value, X)
    try:
        continuous = continuous_domain(derivative, X, sympy.S.Reals) == sympy.S.Reals
    except NotImplementedError:  # sympy cannot decide (e.g. the Heaviside in the hinge's derivative)
        continuous = False
    # factor(deep=True) exposes perfect squares under roots, e.g. 1 + x(u)² = ((u² + 1)/(2u))²
    slope = sympy.simplify(sympy.factor(-derivative.subs(X, loss.substitution), deep=True))
    try:
        decreasing = certify_rational_positive(slope, U, 0, sympy.oo).certified
    except ValueError:  # not a rational function of u after the substitution: no certificate
        decreasing = False
    return Assumption1Check(bool(continuous), bool(decreasing), _limit_is(loss.value, -sympy.oo, sympy.oo),
                            _limit_is(loss.value, sympy.oo, 0))


def _limit_is(expr: sympy.Expr, point: sympy.Expr, target: sympy.Expr) -> bool:
    """Whether sympy proves lim_{x→point} expr = target (False when it cannot compute the limit: sympy's Gruntz
    algorithm raises on some piecewise expressions such as the hinge)."""
    try:
        return bool(sympy.limit(expr, X, point) == target)
    except (NotImplementedError, TypeError, ValueError):
        return False


@claim(
    id="align.asm1",
    ref="Assumption 1, Sec. 1.2",
    kind="assumption",
    title="Losses: continuously differentiable, strictly decreasing, unbounded, vanishing at infinity",
    statement=("The loss $ell$ has a continuous derivative with $ell' < 0$ everywhere, $ell(x) -> oo$ as "
               "$x -> -oo$ and $ell(x) -> 0$ as $x -> oo$; the exponential and logistic losses satisfy it (and so "
               "does the polynomial-tail test loss $sqrt(1 + x^2) - x$)."),
    hypotheses=["margin losses of one real variable"],
    expected="certified",
    profiles={"quick": "sympy: continuity of ℓ', Sturm certificate of −ℓ' > 0 after a rationalizing substitution, "
                       "both limits, for 3 losses and 3 non-examples; engine encodings against the formulas",
              "full": "as quick", "paper": "as quick"},
    notes=[("The dump loses ℓ', ∞ and the arrows ('< 0 is continuous, limx- (x) = and limx (x) = 0'); the reading "
           "is forced by the prose 'continuously differentiable, unbounded, and strictly decreasing to 0'."),
           "The polynomial-tail loss is not in the paper: a test case for the scope of Theorems 1 and 2."],
)
def check_asm1(ctx: Context) -> None:
    encodings = {"exponential": margin_loss("exponential"), "logistic": margin_loss("logistic"),
                 "polynomial-tail": POLYNOMIAL_TAIL}
    grid = np.linspace(-50.0, 50.0, 2001)
    for name, formula in LOSS_FORMULAS.items():
        result = check_assumption1(formula)
        ctx.prove(f"{name} loss", "symbolic", result.holds,
                  f"ℓ = {formula.value}: ℓ' continuous on R, −ℓ'(x(u)) > 0 on u ∈ (0, ∞) "
                  f"with x = {formula.substitution} "
                  "(Sturm), ℓ(−∞) = ∞, ℓ(∞) = 0", vars(result))
        reference = sympy.lambdify(X, [formula.value, -sympy.diff(formula.value, X)], "mpmath")
        with mpmath.workdps(40):
            exact = np.array([[float(v) for v in reference(mpmath.mpf(x))] for x in grid])
        encoding = encodings[name]
        error = max(float(np.max(np.abs(encoding.value(grid) / exact[:, 0] - 1))),
                    float(np.max(np.abs(np.exp(encoding.log_neg_derivative(grid)) / exact[:, 1] - 1))))
        ctx.support(f"{name}: engine encoding", "numeric", error <= 1e-12,
                    "ℓ and −ℓ' of the engine's loss against 40-digit evaluations of the formula on [−50, 50]: "
                    "relative error ≤ 1e-12", {"max_relative_error": error})
    for name, formula in NON_EXAMPLES.items():
        result = check_assumption1(formula)
        failed = [key for key, value in vars(result).items() if not value]
        ctx.control(f"non-example: {name}", not result.holds,
                    f"the same certificate rejects ℓ = {formula.value}: does not establish {', '.join(failed)}",
                    vars(result))


# -- align.asm2 ------------------------------------------------------------------------------------------------

def high_precision_assumption2(objective: Objective, theta: np.ndarray, digits: int = 40) -> bool:
    """Assumption 2 decided from a 40-digit evaluation of R(W(0)) and ∇R(W(0))."""
    with mpmath.workdps(digits):
        exact = Objective(objective.model, B.to_object(objective.X, "mp"), B.to_object(objective.Y, "mp"),
                          objective.loss, mean=True)
        point = B.to_object(theta, "mp")
        value = exact.value(point)
        gradient = mpmath.sqrt(sum(g ** 2 for g in exact.gradient(point)))
        zero_loss = margin_loss(objective.loss).value(B.to_object(np.zeros(1), "mp"))[0]
        return bool(gradient > mpmath.mpf("1e-10") and value <= zero_loss)


def app_a_counter_initialization(width: int, scale: float) -> tuple[Objective, np.ndarray]:
    """App. A's two-layer example: one data point z = 1, exponential loss, w_1(0) = −w_2(0) = scale·(1, …, 1)/√m."""
    net = linear_network((1, width, 1))
    objective = Objective(net, np.ones((1, 1)), np.ones(1), "exponential", mean=True)
    a = np.full(width, scale / np.sqrt(width))
    return objective, np.concatenate([a, -a])


@claim(
    id="align.asm2",
    ref="Assumption 2, Sec. 1.2",
    kind="assumption",
    title="Initialization: not critical, and no worse than the zero predictor",
    statement="The initialization satisfies $nabla R(W(0)) != 0$ and $R(W(0)) <= R(0) = ell(0)$.",
    hypotheses=["any network, data and loss"],
    expected="confirmed",
    profiles={"quick": "the suite's test of Assumption 2 against 40-digit evaluations at 40 Gaussian inits (scales "
                       "0.3 and 0.6) on DS3 × 2 losses; rejection of a critical point and of App. A's bad init",
              "full": "as quick with 200 inits", "paper": "as full"},
    notes=["The dump prints '∇R(W(0)) = 0'; the ≠ was lost (spec §4 E1): the prose says 'not a critical point'."],
)
def check_asm2(ctx: Context) -> None:
    data = ds3()
    net = linear_network((3, 3, 3, 1))
    agreements, accepted, total = 0, 0, 0
    for loss in ("logistic", "exponential"):
        objective = risk(net, data, loss)
        for index in range(ctx.pick(40, 200)):
            scale = 0.3 if index % 2 else 0.6
            theta = scale * ctx.rng(f"init-{loss}-{index}").normal(size=net.n_params)
            decision = satisfies_assumption2(objective, theta)
            agreements += decision == high_precision_assumption2(objective, theta)
            accepted += decision
            total += 1
    ctx.support("decision against 40-digit evaluation", "numeric", agreements == total,
                f"the float64 test of Assumption 2 agrees with 40-digit arithmetic on all {total} random inits "
                f"({accepted} satisfy it, {total - accepted} do not)",
                {"inits": total, "accepted": accepted, "agreements": agreements})
    objective = risk(net, data, "logistic")
    origin = np.zeros(net.n_params)
    counter, counter_theta = app_a_counter_initialization(2, np.sqrt(0.5))
    ctx.control("critical point W = 0", not satisfies_assumption2(objective, origin)
                and not high_precision_assumption2(objective, origin),
                "all layers zero (L = 3): ∇R = 0, rejected")
    ctx.control("App. A init with R(W(0)) > ℓ(0)", not satisfies_assumption2(counter, counter_theta),
                f"w_1(0) = −w_2(0): R(W(0)) = e^0.5 = {float(counter.value(counter_theta)):.6f} > ℓ(0) = 1, rejected")


# -- align.asm3 ------------------------------------------------------------------------------------------------

def _subspace_dataset(rng: np.random.Generator, n: int) -> tuple[Dataset, np.ndarray]:
    """Separable points of a random 2-D subspace of R³ (Assumption 3 fails in R³, holds in the subspace)."""
    planar = ds_random(rng, n, 2)
    basis = np.linalg.qr(rng.normal(size=(3, 2)))[0]
    return Dataset("planar data in R³", planar.Z @ basis.T), basis


@claim(
    id="align.asm3",
    ref="Assumption 3 and the remarks after it, Sec. 2.2",
    kind="assumption",
    title="Support vectors span the input space",
    statement=("The support vectors ${z_i : i in S}$ of the max-margin problem span $RR^d$. For data drawn from a "
               "density this holds almost surely when there are $d$ support vectors (there are at most $d$); it can "
               "be relaxed to 'the support vectors span the span of the data', since gradient flow never leaves it."),
    hypotheses=["linearly separable data"],
    expected="confirmed",
    profiles={"quick": "exact rank of the certified support vectors of DS2 and DS3; 12 random data sets each for "
                       "d ∈ {2, 3, 5} (n = 20): |S| ≤ d, and |S| = d ⇒ full rank and positive duals; the relaxation "
                       "on planar data in R³ (the off-span part of W_1 is constant along the flow)",
              "full": "as quick with 150 data sets per dimension", "paper": "as full"},
    notes=[("'Almost surely true if the number of support vectors is ≥ d' must mean '= d': almost surely |S| ≤ d "
           "(Soudry et al., Lemma 8), which the Monte Carlo confirms."),
           ("Assumption 3 is a genuine restriction (spec §4 E10): random data sets with fewer than d support vectors "
           "occur with positive probability and are counted below.")],
)
def check_asm3(ctx: Context) -> None:
    for data in (ds2(), ds3()):
        svm = max_margin_direction(data)
        ctx.support(f"{data.name} satisfies it", "exact", svm.certified and spans_space(data, svm),
                    f"certified SVM, support vectors {svm.support}, exact rank {data.d}")
    sizes, violations, generic_ok, violating_example = {}, 0, True, None
    for d in (2, 3, 5):
        for index in range(ctx.pick(12, 150)):
            data = ds_random(ctx.rng(f"data-{d}-{index}"), 20, d)
            svm = max_margin_direction(data)
            sizes.setdefault(d, []).append(len(svm.support))
            spans = spans_space(data, svm)
            if len(svm.support) == d:
                generic_ok &= spans and svm.certified and bool(np.all(svm.duals[list(svm.support)] > 0))
            generic_ok &= len(svm.support) <= d
            if not spans:
                violations += 1
                violating_example = violating_example or (data, svm)
    ctx.support("random data: |S| ≤ d, and |S| = d spans", "numeric", generic_ok,
                "every random data set has at most d support vectors; those with exactly d have full exact rank and "
                f"strictly positive certified duals; {violations} data sets violate Assumption 3 (|S| < d)",
                {"violations": violations, **{f"mean_support_size_d{d}": float(np.mean(v)) for d, v in sizes.items()}},
                plot=histogram("Number of support vectors (n = 20)", {f"d = {d}": v for d, v in sizes.items()},
                               xlabel="|S|"))
    rng = ctx.rng("planar")
    data, basis = _subspace_dataset(rng, 12)
    net = linear_network((3, 3, 1))
    objective = risk(net, data, "logistic")
    run = run_flow("planar", objective, admissible_initialization(objective, rng, 0.5), log_spaced(1e-2, 1e8, 21))
    normal = np.cross(basis[:, 0], basis[:, 1])
    off_span = np.array([s.layers[0] @ normal for s in run.states])
    in_span = np.array([s.layers[0] @ basis for s in run.states])
    drift = float(np.max(np.abs(off_span - off_span[0])))
    in_span_drift = float(np.max(np.abs(in_span - in_span[0])))
    ctx.support("relaxation: the flow stays in the data span", "numeric", drift <= 1e-9,
                "planar data in R³: the component of W_1's rows orthogonal to the data plane is constant to 1e-9 "
                "along gradient flow to t = 1e8", {"max_drift": drift})
    ctx.control("the test rejects violating data", violating_example is not None
                and not spans_space(*violating_example) and in_span_drift > 1e-3,
                "spans_space returns False on a random data set with |S| < d, and the in-plane part of W_1 (not "
                "covered by the relaxation) does move", {"in_span_drift": in_span_drift})


# -- align.def.D -----------------------------------------------------------------------------------------------

PYTHAGOREAN_UNITS = [(sympy.Rational(3, 5), sympy.Rational(4, 5)), (sympy.Rational(5, 13), sympy.Rational(12, 13)),
                     (sympy.Rational(8, 17), sympy.Rational(-15, 17)), (sympy.Rational(-7, 25), sympy.Rational(24, 25))]


def rational_balanced_layers(scale: sympy.Rational, units: list[tuple]) -> list[np.ndarray]:
    """W_k = s·u_k u_{k−1}ᵀ with rational unit vectors u_0, …, u_{L−1} ∈ R² and u_L = 1 (exact)."""
    vectors = [np.array(u, dtype=object).reshape(-1, 1) for u in units] + [np.array([[sympy.Integer(1)]])]
    return [scale * vectors[k + 1] @ vectors[k].T for k in range(len(vectors) - 1)]


def exact_constant_lower_bound(layers: list[np.ndarray]) -> sympy.Expr:
    """An exact lower bound on D: max_k F_k² − F_L² + Σ_k max_ij |A_ij| (as ‖A‖_2 ≥ max_ij |A_ij|), with equality
    to D whenever every A_{k,k+1} = 0."""
    squares = [sum(W.ravel() ** 2) for W in layers]
    gaps = [max(abs(entry) for entry in gram_gap(layers, k).ravel()) for k in range(1, len(layers))]
    return sympy.nsimplify(max(squares) - squares[-1] + sum(gaps))


@claim(
    id="align.def.D",
    ref="Definition of D, Sec. 2.1",
    kind="definition",
    title="The initialization constant D vanishes for balanced initializations",
    statement=("$D := max_k norm(W_k (0))_F^2 - norm(W_L (0))_F^2 + sum_(k=1)^(L-1) norm(W_k (0) W_k (0)^T - "
               "W_(k+1)(0)^T W_(k+1)(0))_2 >= 0$; if $W_k (0) W_k (0)^T = W_(k+1)(0)^T W_(k+1)(0)$ for all $k < L$ "
               "then $D = 0$."),
    hypotheses=["any initialization of a deep linear network with $d_L = 1$"],
    expected="certified",
    profiles={"quick": "sympy trace identity; D = 0 exactly for 3 rational balanced inits; D ≥ 0 ≥ … and D_k ≤ D on "
                       "200 random inits", "full": "as quick", "paper": "as quick"},
)
def check_def_D(ctx: Context) -> None:
    layers = [sympy.Matrix(3, 2, sympy.symbols("a0:6", real=True)),
              sympy.Matrix(1, 3, sympy.symbols("b0:3", real=True))]
    trace = is_identically_zero(-sympy.Matrix(gram_gap(layers, 1)).trace()
                                - (sum(e ** 2 for e in layers[0]) - sum(e ** 2 for e in layers[1])))
    ctx.prove("tr A_(k,k+1) = ‖W_k‖_F² − ‖W_(k+1)‖_F²", "symbolic", trace.proved,
              f"so A_(k,k+1) = 0 for all k forces equal Frobenius norms and D = 0: {trace.description}")
    for index, depth in enumerate((2, 3, 4)):
        scale = sympy.Rational(3 + index, 4)
        balanced = rational_balanced_layers(scale, PYTHAGOREAN_UNITS[:depth])
        zero_gaps = all(all(entry == 0 for entry in gram_gap(balanced, k).ravel()) for k in range(1, depth))
        value = exact_constant_lower_bound(balanced)
        as_float = initialization_constant([B.to_float(W) for W in balanced])
        ctx.prove(f"balanced rational init, L = {depth}", "exact", zero_gaps and value == 0 and abs(as_float) <= 1e-14,
                  f"W_k = {scale}·u_k u_(k−1)ᵀ with rational unit u_k: every A_(k,k+1) is exactly 0 and D = {value}; "
                  "the float64 helper gives ≤ 1e-14", {"float_D": as_float})
    worst_sign, worst_order = np.inf, np.inf
    for index in range(200):
        rng = ctx.rng(f"random-{index}")
        widths = [int(w) for w in rng.integers(1, 5, size=int(rng.integers(2, 5)))] + [1]
        random_layers = [rng.normal(size=(widths[k + 1], widths[k])) for k in range(len(widths) - 1)]
        D = initialization_constant(random_layers)
        worst_sign = min(worst_sign, D)
        worst_order = min(worst_order, float(np.min(D - initialization_constants(random_layers))))
    ctx.support("D ≥ 0 and D_k ≤ D", "numeric", worst_sign >= 0 and worst_order >= -1e-12,
                "200 random inits of random depths and widths", {"min_D": worst_sign, "min_D_minus_D_k": worst_order})
    balanced = rational_balanced_layers(sympy.Rational(3, 4), PYTHAGOREAN_UNITS[:3])
    balanced[1] = balanced[1].copy()
    balanced[1][0, 0] += sympy.Rational(1, 1000)
    bound = exact_constant_lower_bound(balanced)
    ctx.control("balance broken by 1/1000", bound > 0,
                f"one entry moved by 1/1000: the same exact evaluation gives D ≥ {bound} > 0",
                {"lower_bound": str(bound)})


# -- align.rem.A-init -------------------------------------------------------------------------------------------

@claim(
    id="align.rem.A-init",
    ref="App. A, first paragraph (and Sec. 1.2 after Assumption 2)",
    kind="remark",
    title="W_1(0) = 0 with a nonzero product of the other layers satisfies Assumption 2",
    statement=("If $W_1(0) = 0$ and $W_L (0) dots.c W_2(0) != 0$ then $R(W(0)) = ell(0)$ and "
               "$partial R slash partial W_1 = ell'(0) (W_L (0) dots.c W_2(0))^T macron(z)^T != 0$ with "
               "$macron(z) = 1/n sum_i z_i$, because $chevron.l macron(z), macron(u) chevron.r >= gamma > 0$."),
    hypotheses=["Assumption 1", "linearly separable data"],
    expected="certified",
    profiles={"quick": "sympy gradient at W_1 = 0 (generic loss); exact ⟨z̄, ū⟩ ≥ γ on DS2, DS3; 40 random "
                       "instances on 4 data sets × 2 losses, gradient flow from 4 of them",
              "full": "as quick with 200 random instances", "paper": "as full"},
    notes=[("The dump prints 'W_L(0)⋯W_2(0) = 0'; the ≠ was lost (spec §4 E1): with = 0 every layer gradient "
           "vanishes, which is this claim's negative control.")],
)
def check_rem_a_init(ctx: Context) -> None:
    dims = (2, 2, 2, 1)
    layers = [sympy.Matrix(dims[k + 1], dims[k], sympy.symbols(f"w{k}_0:{dims[k] * dims[k + 1]}", real=True))
              for k in range(len(dims) - 1)]
    ell, q = sympy.Function("ell"), sympy.Symbol("q", real=True)
    points = [sympy.Matrix(sympy.symbols(f"z{i}_0:2", real=True)) for i in range(3)]
    w = chain(layers).T
    objective = sum(ell(w.dot(z)) for z in points) / 3
    at_zero = {entry: 0 for entry in layers[0]}
    gradient = layers[0].applyfunc(lambda entry: sympy.diff(objective, entry).subs(at_zero).doit())
    mean = sum(points, sympy.zeros(2, 1)) / 3
    expected = sympy.diff(ell(q), q).subs(q, 0) * chain(layers[1:]).T * mean.T
    identity = is_identically_zero(gradient - expected)
    ctx.prove("gradient at W_1 = 0", "symbolic", identity.proved,
              f"∂R/∂W_1 = ℓ'(0)(W_3W_2)ᵀ z̄ᵀ for a generic loss and 3 symbolic points: {identity.description}")
    for data in (ds2(), ds3()):
        svm = max_margin_direction(data)
        mean_margin = E.dot(np.mean(data.exact_Z, axis=0), svm.exact_direction)
        ctx.prove(f"{data.name}: ⟨z̄, ū⟩ ≥ γ", "exact", svm.certified and E.sign(mean_margin - svm.reference.certificate
                                                                               .margin) >= 0,
                  f"exact: ⟨z̄, ū⟩ = {mean_margin} ≥ γ = {svm.reference.certificate.margin} > 0, so ∇R(0) ≠ 0",
                  {"mean_margin": float(mean_margin), "gamma": svm.margin})
    satisfied, total, decreasing = 0, 0, True
    datasets = [ds2(), ds3(), ds_random(ctx.rng("data-0"), 10, 3), ds_random(ctx.rng("data-1"), 10, 4)]
    for data in datasets:
        net = linear_network((data.d, 3, 2, 1))
        for loss in ("logistic", "exponential"):
            objective = risk(net, data, loss)
            for index in range(ctx.pick(5, 25)):
                theta = ctx.rng(f"{data.name}-{loss}-{index}").normal(size=net.n_params)
                theta[:net.sizes[0]] = 0.0
                total += 1
                satisfied += (satisfies_assumption2(objective, theta)
                              and float(objective.value(theta)) == loss_at_zero(loss))
                if index == 0 and loss == "logistic":
                    run = run_flow(data.name, objective, theta, log_spaced(1e-2, 1e4, 13))
                    decreasing &= is_monotone(run.risks[1:], "decreasing") and run.risks[-1] < run.risks[0]
    ctx.support("random instances", "numeric", satisfied == total and decreasing,
                f"{satisfied}/{total} inits with W_1 = 0 satisfy Assumption 2 with R(W(0)) = ℓ(0); gradient flow from "
                "them decreases the risk", {"instances": total, "satisfied": satisfied})
    data = ds3()
    net = linear_network((3, 3, 2, 1))
    objective = risk(net, data, "logistic")
    theta = ctx.rng("control").normal(size=net.n_params)
    theta[:net.sizes[0] + net.sizes[1]] = 0.0  # W_1 = W_2 = 0: the product W_3W_2 vanishes too
    stuck = run_flow("control", objective, theta, log_spaced(1e-2, 1e4, 5))
    ctx.control("also W_L⋯W_2 = 0", not satisfies_assumption2(objective, theta)
                and float(np.max(np.abs(stuck.trajectory.theta - theta))) == 0.0,
                "W_1 = W_2 = 0: every layer gradient is exactly 0, Assumption 2 is rejected and the flow never moves")


# -- align.rem.A-counter ----------------------------------------------------------------------------------------

def exponential_integral_solution(s0: mpmath.mpf, t: mpmath.mpf) -> mpmath.mpf:
    """s(t) = ‖w_1(t)‖² on App. A's invariant line: the root of E_1(s) = E_1(s0) + 2t (bisection-type root
    finding in log s, bracketed by E_1(s) ≈ −γ_E − ln s)."""
    target = mpmath.e1(s0) + 2 * t
    low = mpmath.log(s0) - target - 2

    def gap(log_s: mpmath.mpf) -> mpmath.mpf:
        return mpmath.e1(mpmath.exp(log_s)) - target

    return mpmath.exp(mpmath.findroot(gap, (low, mpmath.log(s0)), solver="anderson"))


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
    expected="certified",
    profiles={"quick": "sympy: invariance of w_1 + w_2 = 0 and the E_1 law; 30-digit Bulirsch–Stoer (m = 2, "
                       "s0 = 1/2) against the closed form at t = 1/4, 1/2, 1, 2; perturbed init by LSODA to t = 60",
              "full": "as quick", "paper": "as quick"},
    notes=["The closed form with the exponential integral E_1 is ours (spec), not the paper's.",
           "D = 0 here (w_1 w_1ᵀ and w_2 w_2ᵀ agree), so the failure is due to R(W(0)) > ℓ(0) alone."],
)
def check_rem_a_counter(ctx: Context) -> None:
    m = 2
    w1 = sympy.Matrix(sympy.symbols(f"a0:{m}", real=True))
    w2 = sympy.Matrix(sympy.symbols(f"b0:{m}", real=True))
    objective = sympy.exp(-w1.dot(w2))
    field = gradient_flow(objective, [w1, w2])
    velocity_sum = field[0] + field[1]
    invariance = is_identically_zero(velocity_sum - objective * (w1 + w2))
    on_line = is_identically_zero(objective.subs(dict(zip(w2, -w1))) - sympy.exp(w1.dot(w1)))
    s = sympy.Function("s")(sympy.Symbol("t"))
    rate = lie_derivative(w1.dot(w1), [w1, w2], field).subs(dict(zip(w2, -w1)))
    law = is_identically_zero(sympy.simplify(rate - (-2 * w1.dot(w1) * sympy.exp(w1.dot(w1)))))
    e1_derivative = is_identically_zero(sympy.simplify(sympy.diff(sympy.expint(1, s), s.args[0]).subs(
        sympy.Derivative(s, s.args[0]), -2 * s * sympy.exp(s)) - 2))
    ctx.prove("invariant line and exact law", "symbolic",
              invariance.proved and on_line.proved and law.proved and e1_derivative.proved,
              "d(w_1 + w_2)/dt = R·(w_1 + w_2), so w_1 + w_2 = 0 persists (uniqueness); on it R = e^{‖w_1‖²} ≥ 1, "
              "ds/dt = −2s e^s for s = ‖w_1‖², and d E_1(s)/dt = 2")
    with mpmath.workdps(30):
        objective_mp = Objective(linear_network((1, m, 1)), B.to_object(np.ones((1, 1)), "mp"),
                                 B.to_object(np.ones(1), "mp"), "exponential")
        a = np.array([mpmath.mpf(1) / 2] * m, dtype=object)  # s0 = ‖a‖² = 1/2
        checkpoints = [mpmath.mpf(1) / 4, mpmath.mpf(1) / 2, mpmath.mpf(1), mpmath.mpf(2)]
        solution = hp_ode.integrate(lambda t, z: objective_mp.descent(z), 0, np.concatenate([a, -a]), 2,
                                    t_eval=checkpoints)
        s0 = mpmath.mpf(1) / 2
        errors, sums, risks = [], [], []
        for t, z in zip(solution.t[1:], solution.y[1:]):
            errors.append(abs(sum(z[:m] ** 2) - exponential_integral_solution(s0, t)))
            sums.append(max(abs(v) for v in z[:m] + z[m:]))
            risks.append(objective_mp.value(z))
        worst = float(max(errors))
        ctx.support("30-digit flow against the closed form", "numeric",
                    solution.status is hp_ode.HPStatus.COMPLETED and worst <= 1e-25 and max(sums) <= 1e-28
                    and min(risks) >= 1,
                    "Bulirsch–Stoer at 30 digits from w_1 = −w_2 = (1/2, 1/2): |‖w_1‖² − s(t)| ≤ 1e-25 at "
                    "t = 1/4, 1/2, 1, 2, w_1 + w_2 = 0 to 1e-28, R ≥ 1",
                    {"max_abs_error": worst, "max_abs_w1_plus_w2": float(max(sums)),
                     "s_at_2": float(exponential_integral_solution(s0, 2)), "nfev": solution.nfev})
        tail = [float(exponential_integral_solution(s0, t)) for t in (5, 10, 20)]
    times = np.linspace(0.0, 60.0, 121)
    counter, theta0 = app_a_counter_initialization(m, float(np.sqrt(0.5)))
    perturbed = theta0 + 1e-6 * ctx.rng("perturbation").normal(size=theta0.size)
    run_exact = run_flow("invariant line", counter, theta0, times)
    run_perturbed = run_flow("perturbed", counter, perturbed, times)
    ctx.control("init perturbed by 1e-6", float(run_perturbed.risks[-1]) < 0.01 and float(run_exact.risks.min()) >= 1,
                "the same risk bound R ≥ 1 fails for w_1(0) = −w_2(0) + 1e-6ξ: the flow escapes the saddle and "
                "R(60) < 0.01 (float64 LSODA), while on the line R stays ≥ 1",
                {"perturbed_risk_at_60": float(run_perturbed.risks[-1]), "closed_form_s_at_5_10_20": str(tail)},
                plot=line("App. A example: risk along the flow", {
                    "w_1(0) = −w_2(0)": (times[1:], run_exact.risks[1:]),
                    "perturbed by 1e-6": (times[1:], run_perturbed.risks[1:])},
                    xlabel="t", ylabel="R(W(t))", yscale="log"))
