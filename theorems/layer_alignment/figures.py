"""The experiments of Ji & Telgarsky: Figure 1 (synthetic 2-D data, 4-layer linear network against a linear
predictor) reproduced with stand-in parameters, and Figure 2 (AlexNet on CIFAR-10), for which CIFAR-10 cannot be
downloaded here, replaced by a small CNN on scikit-learn's bundled digits data measuring the same quantities."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from numerics.descent import DescentRun, gradient_descent
from numerics.losses import Objective
from numerics.metrics import angle, spectral_to_frobenius
from numerics.tolerances import at_least, at_most
from theorems.layer_alignment.common import Dataset, layer_state, linear_network, max_margin_direction
from theorems.layer_alignment.criteria import Named
from verify import Context, claim, criterion, line
from verify.claim import Plot, Series

if TYPE_CHECKING:
    import torch

# -- align.fig1 ---------------------------------------------------------------------------------------------------

FIG1_WIDTHS = (2, 10, 10, 10, 1)


def figure1_data(rng: np.random.Generator, n: int = 40) -> Dataset:
    """The stand-in for Fig. 1's data (not specified in the paper): n points uniform on [−7.5, 7.5] × [−2, 4]
    labelled by sign(−0.3x + y), keeping |−0.3x + y| > 0.6 (norms up to ~7.5, unlike the paper's ‖x‖ ≤ 1)."""
    points: list[np.ndarray] = []
    while len(points) < n:
        x = np.array([rng.uniform(-7.5, 7.5), rng.uniform(-2.0, 4.0)])
        score = -0.3 * x[0] + x[1]
        if abs(score) > 0.6:
            points.append(np.sign(score) * x)
    return Dataset("Fig. 1 stand-in", np.array(points))


def ratios_rise_after_plateau(risks: np.ndarray, ratios: np.ndarray, plateau_level: float) -> bool:
    """Spectral-to-Frobenius ratios nondecreasing on the checkpoints after the risk first falls below the plateau
    level (the rise happens together with the drop of the risk)."""
    below = np.flatnonzero(risks < plateau_level)
    if below.size == 0:
        return False
    after = ratios[below[0]:]
    return bool(np.all(at_least(np.diff(after, axis=0), -1e-12)))


def _boundary(direction: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The decision line ⟨w, x⟩ = 0 as y(x)."""
    return -direction[0] * xs / direction[1]


def separating_arc(data: Dataset) -> tuple[float, float]:
    """The separating directions of 2-D data form an arc of angles (φ_low, φ_high) (radians, measured from the
    max-margin direction ū): w = (cos φ, sin φ) rotated by ū's angle has ⟨w, z_i⟩ > 0 for every i exactly there."""
    u_bar = max_margin_direction(data).direction
    relative = np.angle(np.exp(1j * (np.arctan2(data.Z[:, 1], data.Z[:, 0]) - np.arctan2(u_bar[1], u_bar[0]))))
    return float(relative.max() - np.pi / 2), float(relative.min() + np.pi / 2)


def _rotated(u_bar: np.ndarray, phi: float) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([c * u_bar[0] - s * u_bar[1], s * u_bar[0] + c * u_bar[1]])


def _max_margin(data: Dataset) -> np.ndarray:
    return max_margin_direction(data).direction


def _far_edge(data: Dataset) -> np.ndarray:
    """Another separator for the control: the end of the separating arc farther from ū, moved 1% of the arc
    inwards (so it still separates)."""
    low, high = separating_arc(data)
    phi = low + 0.01 * (high - low) if -low > high else high - 0.01 * (high - low)
    return _rotated(max_margin_direction(data).direction, phi)


FIG1_FRACTION = 0.25  # of the width of the separating arc
STRADDLE_SHARE = 0.75  # the control's predictors: this share of the tolerance on either side of ū


@criterion("both trained predictors, and each other, within fraction·α of the target direction, α the angular "
           "width of the set of separating directions")
def same_separator(trained: Named, target, fraction: float):
    data, predictors = trained.value
    low, high = separating_arc(data)
    width = high - low
    direction = target(data)
    angles = {name: float(angle(w, direction)) for name, w in predictors.items()}
    first, second = predictors.values()
    mutual = float(angle(first, second))
    holds = max(angles.values()) <= fraction * width and mutual <= fraction * width
    return (holds, f"angles {', '.join(f'{n} {np.degrees(a):.3g}°' for n, a in angles.items())}, between them "
            f"{np.degrees(mutual):.3g}°, arc width α = {np.degrees(width):.3g}°",
            {**{f"angle_over_arc_width {n}": a / width for n, a in angles.items()},
             **{f"angle_degrees {n}": float(np.degrees(a)) for n, a in angles.items()},
             "mutual_angle_degrees": float(np.degrees(mutual)), "arc_width_degrees": float(np.degrees(width)),
             "threshold_fraction": fraction})


def _spectral_ratio(W: np.ndarray) -> float:
    return spectral_to_frobenius(W)


RATIO_SHIFT = 1e-9  # the control's shift of the ratio: far above rounding, far below the ratios' rise
EARLY_STOP_RISK = 0.02  # the early-stopped control ends at its last checkpoint with the risk above this (> 1e-2)


def _lowered_ratio(W: np.ndarray) -> float:
    """The control quantity: ‖W‖_2/‖W‖_F − RATIO_SHIFT, which rises wherever the ratio does."""
    return spectral_to_frobenius(W) - RATIO_SHIFT


def _second_ratio(W: np.ndarray) -> float:
    """The control quantity: σ_2/‖W‖_F (0 for a vector), which falls as the layer becomes rank one."""
    values = np.linalg.svd(W, compute_uv=False)
    return float(values[1] / np.linalg.norm(W)) if values.size > 1 else 1.0


@criterion("risk decreasing at every checkpoint and below 1e-2 at the end; the quantity of every layer nondecreasing "
           "once the risk is below half its initial value; the row-vector layer's quantity 1 to 1e-12")
def rise_with_risk(run: Named, quantity):
    net, descent = run.value
    risks = descent.loss
    ratios = np.array([[quantity(W) for W in net.matrices(theta)] for theta in descent.theta])
    rises = ratios_rise_after_plateau(risks, ratios, 0.5 * risks[0])
    last_layer_exact = bool(np.all(at_most(np.abs(ratios[:, -1] - 1.0), 1e-12)))
    holds = rises and last_layer_exact and risks[-1] < 1e-2 and bool(np.all(np.diff(risks) < 0))
    return holds, f"nondecreasing after the plateau: {rises}", {"final_risk": float(risks[-1]), **{
        f"final_ratio_W{i + 1}": float(r) for i, r in enumerate(ratios[-1])}}


@claim(
    id="align.fig1",
    ref="Figure 1 (Sec. 1)",
    kind="experiment",
    title="Figure 1: a 4-layer linear network and a linear predictor reach the same separator; layers align",
    statement=("On separable 2-D data, gradient descent on a 4-layer linear network and on a linear predictor reach "
               "the same (max-margin) separator, and for every layer $norm(W_i)_2 slash norm(W_i)_F$ rises towards 1 "
               "while the risk falls to 0, simultaneously."),
    hypotheses=["synthetic separable 2-D data (stand-in parameters)", "logistic loss, full-batch gradient descent"],
    conclusions={
        "both predictors approach the same (max-margin) separator": "confirmed",
        "every ‖W_i‖_2/‖W_i‖_F rises towards 1 while the risk falls to 0": "confirmed",
    },
    profiles={"quick": "40 points, widths (2,10,10,10,1) and (2,1), init N(0, 0.1²), step 0.5, 250 iterations "
                       "(the paper's x-axis)",
              "full": "as quick with 1000 iterations", "paper": "as quick with 2500 iterations"},
    notes=[("The paper gives no n, data law, widths, init, step size or loss; the stand-in's ranges match the "
            "figure's axes. W_4 is a row vector, so its ratio is identically 1."),
           ("With a larger init (0.3–0.5) the ratios stay at 0.5–0.85 within 250 steps (D is large): the "
            "simultaneous rise needs a small initialization."),
           ("'Reach the same separator' is read at the figure's horizon, relative to the data: both predictors and "
            "each other within a quarter of the angular width α of the set of separating directions of the certified "
            "max-margin direction ū. The direction converges like 1/log t with a data-dependent constant, and the "
            "angle after 250 steps ranges from 0.03° to ~4° over data seeds (α from 12° to 32°): an absolute "
            "tolerance in degrees failed for 5 of 12 seeds; the measured angles stay below 0.15·α over 12 seeds. "
            "Monotone approach is no usable proxy here: below a degree the direction wanders around ū.")],
)
def check_fig1(ctx: Context) -> None:
    approach_conclusion, alignment_conclusion = ctx.conclusions
    data = figure1_data(ctx.rng("data"))
    svm = max_margin_direction(data)
    steps = ctx.pick(250, 1000, 2500)
    predictors, runs = {}, {}
    for name, widths in (("4 layers", FIG1_WIDTHS), ("1 layer", (2, 1))):
        net = linear_network(widths)
        objective = Objective(net, data.X, data.y, "logistic", mean=True)
        run = gradient_descent(objective, 0.1 * ctx.rng(f"init-{name}").normal(size=net.n_params), steps, 0.5,
                               record_every=5)
        runs[name] = (net, run)
        predictors[name] = layer_state(net.matrices(run.final)).w_prod
    trained = Named(f"the 4-layer and 1-layer predictors after {steps} steps on the Fig. 1 stand-in data",
                    (data, predictors))
    xs = np.array([-7.5, 7.5])
    boundaries = {f"{name} boundary": (xs, _boundary(w, xs)) for name, w in predictors.items()}
    boundaries["max-margin boundary"] = (xs, _boundary(svm.direction, xs))
    ctx.support("same separator", "numeric", same_separator(trained, _max_margin, FIG1_FRACTION),
                "against the certified max-margin direction", conclusion=approach_conclusion,
                plot=line("Fig. 1a stand-in: decision lines ⟨w, x⟩ = 0", boundaries, xlabel="x", ylabel="y"))
    ctx.control("another separator (far end of the separating arc)", same_separator(trained, _far_edge, FIG1_FRACTION),
                "a separator at the far end of the arc of separating directions in place of ū",
                plot=Plot("scatter", "Fig. 1a stand-in: the data z_i = y_i x_i",
                          (Series("z_i = y_i x_i", tuple(data.Z[:, 0]), tuple(data.Z[:, 1])),), "x", "y"))
    # each within the tolerance of ū, but on opposite sides of it: only their mutual angle exceeds the tolerance
    low, high = separating_arc(data)
    offset = STRADDLE_SHARE * FIG1_FRACTION * (high - low)
    straddling = {name: _rotated(svm.direction, sign * offset) for name, sign in zip(predictors, (1.0, -1.0))}
    ctx.control("predictors on opposite sides of ū",
                same_separator(Named(f"ū rotated by ±{STRADDLE_SHARE * FIG1_FRACTION:g}·α in place of the trained "
                                     "predictors", (data, straddling)), _max_margin, FIG1_FRACTION),
                f"two different separators, each within the tolerance of ū, {2 * STRADDLE_SHARE:g}× the tolerance "
                "apart")
    net, run = runs["4 layers"]
    ratios = np.array([[spectral_to_frobenius(W) for W in net.matrices(theta)] for theta in run.theta])
    curves = {"risk": (run.steps, run.loss)}
    curves.update({f"‖W_{i + 1}‖_2/‖W_{i + 1}‖_F": (run.steps, ratios[:, i]) for i in range(ratios.shape[1])})
    four_layer = Named(f"{steps}-step run of the 4-layer network", (net, run))
    ctx.support("alignment with risk minimization", "numeric", rise_with_risk(four_layer, _spectral_ratio),
                "‖W_i‖_2/‖W_i‖_F of every layer along the 4-layer run", conclusion=alignment_conclusion,
                plot=line("Fig. 1b stand-in: alignment and risk", curves, xlabel="iteration"))
    ctx.control("second singular value", rise_with_risk(four_layer, _second_ratio),
                "σ_2/‖W_i‖_F in place of σ_1/‖W_i‖_F: it falls as the layers become rank one")
    ctx.control(f"ratio lowered by {RATIO_SHIFT:g}", rise_with_risk(four_layer, _lowered_ratio),
                f"‖W_i‖_2/‖W_i‖_F − {RATIO_SHIFT:g}: every ratio still rises, but the row vector's is no longer 1")
    early = int(np.flatnonzero(run.loss > EARLY_STOP_RISK)[-1])
    stopped = DescentRun(run.steps[:early + 1], run.theta[:early + 1], run.loss[:early + 1], run.step_sizes)
    ctx.control("run stopped early", rise_with_risk(Named(f"the 4-layer run stopped at risk > {EARLY_STOP_RISK:g}",
                                                          (net, stopped)), _spectral_ratio),
                f"the run cut at its last checkpoint with risk above {EARLY_STOP_RISK:g}: the risk has not "
                "fallen to 0 yet", because="nondecreasing after the plateau: True")
    stalled = DescentRun(np.append(run.steps, run.steps[-1] + 1), np.vstack([run.theta, run.theta[-1:]]),
                         np.append(run.loss, run.loss[-1]), np.append(run.step_sizes, 0.0))
    ctx.control("a stalled last step", rise_with_risk(Named("the 4-layer run with a last step of size 0",
                                                            (net, stalled)), _spectral_ratio),
                "a final step that does not move: the risk stops decreasing", because="nondecreasing after the "
                "plateau: True")


# -- align.fig2 ---------------------------------------------------------------------------------------------------

DENSE_SHAPES = ((256, 128), (256, 256), (10, 256))  # (out, in) of the three dense layers


@contextmanager
def _single_thread():
    """One thread for torch, OpenMP and BLAS: a tiny CNN runs fastest that way, and numpy's SVDs next to torch's
    OpenMP threads slow down a hundredfold on a loaded machine otherwise."""
    import torch
    from threadpoolctl import threadpool_limits

    previous = torch.get_num_threads()
    with threadpool_limits(limits=1):  # torch set inside: the limits also reset its OpenMP pool
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(previous)


def digits_cnn(seed: int, equal_norm: float | None):
    """conv(1→16, 3×3) + ReLU + 2×2 max-pool, conv(16→32, 3×3) + ReLU + 2×2 max-pool, then dense 128→256→256→10
    with ReLUs (PyTorch default init; with ``equal_norm``, Gaussian dense layers rescaled to that Frobenius norm)."""
    import torch

    torch.manual_seed(seed)
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    if equal_norm is not None:
        with torch.no_grad():
            for layer in dense_layers(model):
                layer.weight.normal_()
                layer.weight.mul_(equal_norm / layer.weight.norm())
    return model


def dense_layers(model) -> list:
    import torch

    return [m for m in model if isinstance(m, torch.nn.Linear)]


LEARNING_RATE = 0.1


def digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8×8 digits (images 1797 × 8 × 8 in 0..16, labels), as ``load_digits`` gives them: read from
    the CSV file scikit-learn ships, without importing ``sklearn.datasets`` (a second of a quick run); through
    ``load_digits`` where that file is not found (tests/test_align_descent.py checks both agree)."""
    import gzip
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("sklearn")
    path = Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz" if spec and spec.origin else None
    if path is None or not path.is_file():
        from sklearn.datasets import load_digits

        bunch = load_digits()
        return bunch.images, bunch.target
    with gzip.open(path, "rt") as file:
        data = np.loadtxt(file, delimiter=",")
    return data[:, :-1].reshape(-1, 8, 8), data[:, -1].astype(int)


def sgd_step(model: torch.nn.Module, lr: float) -> None:
    """p ← p − lr·∇p for every parameter: ``torch.optim.SGD(lr=lr).step()`` without momentum or weight decay, the
    same ``add_`` on CPU tensors, without constructing an optimizer (which imports torch._dynamo: 1.5 s)."""
    import torch

    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.grad is not None:
                parameter.add_(parameter.grad, alpha=-lr)


def train_digits(seed: int, equal_norm: float | None, steps: int, record_every: int,
                 step_norms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """SGD (step 0.1, batch 64, cross-entropy) on scikit-learn's 8×8 digits: (steps, risks, dense-layer ratios,
    each step's gradient norm per parameter tensor) at every ``record_every``-th step and the last.

    With ``step_norms`` (the control), every parameter moves instead along a Gaussian direction of the norm the
    trained run's gradient had at that step: the same step lengths, no information from the data (and no gradient
    or risk to compute: its risks are empty)."""
    import torch

    digit_images, digit_labels = digits()
    images = torch.tensor(digit_images / 16.0, dtype=torch.float32)[:, None]
    labels = torch.tensor(digit_labels)
    model = digits_cnn(seed, equal_norm)
    parameters = list(model.parameters())
    batches = np.random.default_rng(seed)
    recorded, risks, ratios, norms = [], [], [], []
    for step in range(steps + 1):
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                if step_norms is None:  # the control's risk is not read
                    risks.append(float(torch.nn.functional.cross_entropy(model(images), labels)))
                ratios.append([spectral_to_frobenius(layer.weight.detach()) for layer in dense_layers(model)])
            recorded.append(step)
        if step == steps:
            break
        if step_norms is None:
            batch = torch.as_tensor(batches.integers(0, len(labels), 64))
            model.zero_grad()
            torch.nn.functional.cross_entropy(model(images[batch]), labels[batch]).backward()
            norms.append([float(parameter.grad.norm()) for parameter in parameters])
        else:
            with torch.no_grad():
                for parameter, norm in zip(parameters, step_norms[step]):
                    noise = torch.randn_like(parameter)
                    parameter.grad = noise * (float(norm) / noise.norm())
        sgd_step(model, LEARNING_RATE)
    return np.array(recorded), np.array(risks), np.array(ratios), np.array(norms if step_norms is None else step_norms)


@criterion("for every training run, every dense layer ends above its starting ratio ‖W‖_2/‖W‖_F and the 256-wide "
           "layers end at ≥ 2× their lower bounds 1/√(min dim)")
def alignment_emerges(trainings: Named, lower_bounds: tuple[float, ...]):
    wide = np.array([min(shape) >= 100 for shape in DENSE_SHAPES])
    bounds = np.asarray(lower_bounds)
    failed = []
    for name, (_, _, ratios) in trainings.value.items():
        if not (np.all(ratios[-1] > ratios[0]) and np.all(ratios[-1][wide] >= 2 * bounds[wide])):
            failed.append(name)
    figures = {f"{name}: final_ratio_dense{i + 1}": float(r) for name, (_, _, ratios) in trainings.value.items()
               for i, r in enumerate(ratios[-1])}
    return not failed, f"fails for {failed}" if failed else "every run", figures


@claim(
    id="align.fig2",
    ref="Figure 2 and Sec. 4",
    kind="experiment",
    title="Figure 2 (stand-in): dense layers of a trained CNN align",
    statement=("When a (nonlinear) convolutional network is trained by SGD, the dense layers' ratios "
               "$norm(W_i)_2 slash norm(W_i)_F$ grow far above their lower bounds $1 slash sqrt(min(d_(i-1), d_i))$; "
               "an initialization with equal Frobenius norms across dense layers makes this cleaner."),
    hypotheses=["stand-in: scikit-learn's digits (1797 8×8 images, 10 classes) for CIFAR-10, a small CNN for AlexNet",
                "SGD on the cross-entropy"],
    conclusions={"dense-layer ratios ‖W_i‖_2/‖W_i‖_F grow far above 1/√(min dim) under SGD (digits CNN stand-in, "
                 "default and equal-norm inits)": "confirmed"},
    profiles={"quick": "300 SGD steps (about 11 epochs), default and equal-norm (‖W‖_F = 4) inits",
              "full": "1500 SGD steps", "paper": "2800 SGD steps (100 epochs)"},
    notes=[("An illustration of a non-theorem (Sec. 4 is explicitly preliminary), with a stand-in: CIFAR-10 cannot "
           "be downloaded here, so the digits data bundled with scikit-learn and a CNN with dense layers "
           "128→256→256→10 replace AlexNet's (1024, 4096), (4096, 4096), (4096, 10); the measured quantities are the "
           "paper's."), ("Not reported by the paper: learning rate, batch size, epochs, seeds; the curves' values are "
           "not recoverable from the printed figure, so nothing is compared with them."),
           ("The output layer has 10 rows, so its lower bound 10^{−1/2} ≈ 0.32 leaves little room; it is only asked to "
           "end above its starting ratio.")],
)
def check_fig2(ctx: Context) -> None:
    steps = ctx.pick(300, 1500, 2800)
    lower_bounds = tuple(1.0 / np.sqrt(min(shape)) for shape in DENSE_SHAPES)
    curves, figures, trained, random_walks = {}, {}, {}, {}
    with _single_thread():
        for name, equal_norm in (("default init", None), ("equal-norm init", 4.0)):
            seed = int(ctx.rng(name).integers(2**31))
            recorded, risks, ratios, step_norms = train_digits(seed, equal_norm, steps, max(steps // 10, 1))
            trained[name] = (recorded, risks, ratios)
            # the control is read only at its first and last step (alignment_emerges; it is not plotted)
            random_walks[name] = train_digits(seed, equal_norm, steps, steps, step_norms)[:3]
            curves[f"{name}: risk"] = (recorded, risks)
            for i in range(ratios.shape[1]):
                curves[f"{name}: dense {i + 1}"] = (recorded, ratios[:, i])
            figures[f"{name}: final_risk"] = float(risks[-1])
    ctx.support("dense-layer alignment", "numeric",
                alignment_emerges(Named(f"{steps} SGD steps from the default and equal-norm inits", trained),
                                  lower_bounds),
                "both inits", {**figures, **{f"lower_bound_dense{i + 1}": b for i, b in enumerate(lower_bounds)}},
                plot=line("Fig. 2 stand-in: digits CNN, risk and ‖W_i‖_2/‖W_i‖_F", curves, xlabel="SGD step",
                          reference={f"1/√{min(s)}": b for s, b in zip(DENSE_SHAPES, lower_bounds)}))
    ctx.control("random updates of the same lengths",
                alignment_emerges(Named(f"{steps} random steps of SGD's lengths from the same inits", random_walks),
                                  lower_bounds),
                "every stochastic gradient replaced by a Gaussian direction of its norm in the trained run, "
                "parameter by parameter (training dropped)")
