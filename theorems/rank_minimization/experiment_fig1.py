"""The experiment of Sec. 3.1 / Fig. 1: GD from tiny initializations on the two-point dataset, 288 repeats.

Data: y_1 = e_1, y_2 = e_2; x_1 ∝ (1, 0.99), x_2 ∝ (−1, 0.99) (unit norm, angle 90.58°). Network N_{W,V}(x) =
Vσ(Wx) with W, V ∈ R^{2×2}, square loss ½Σ‖N(x_i) − y_i‖² (Eq. (1)). Every row of W and every column of V is
drawn uniformly from the circle of radius 1e-4. Full-batch GD, step 1e-4, 3·10⁶ epochs (gradient-flow time
300); a run has converged when its final loss is below 1e-4. The paper reports 79 of 288 runs converged and a
histogram (Fig. 1) of the stable ranks ‖W‖_F²/‖W‖_σ² of both layers over those runs, all bounded away from 1.

:func:`run_fig1` is the experiment's core: a sweep (:func:`numerics.sweeps.descent_sweep`) of float64 GD over the
runs, in chunks on local threads or a Dask cluster, each chunk in the compiled kernel on the CPU
(:mod:`numerics.compiled_descent`) or on a GPU (:mod:`numerics.cuda_descent`, the same update); the claim
``rank.exp.fig1`` runs it at the paper's protocol (profile ``paper``; ``gpu``: on 10⁶ runs) or at the same horizon
with a larger step (``quick``, ``full``).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from numerics.sweeps import clopper_pearson
from numerics.tolerances import below
from verify import Context, Decision, claim, criterion, histogram
from verify.workloads import (
    CONVERGENCE_THRESHOLD,
    HORIZON,
    PAPER_EPOCHS,
    PAPER_RUNS,
    PAPER_STEP_SIZE,
    run_fig1,
)

# -- the paper's protocol (the workload itself lives in verify.workloads, which the benchmark times) ---------------
PAPER_CONVERGED = 79  # the paper's reported outcome: compared against, never expected

QUICK_STEP_SIZE = 1e-2  # the same horizon T in 100× fewer steps
CONFIDENCE = 0.999  # of the Clopper–Pearson interval reported next to the paper's 79/288

# pass criteria of the claim
TEST_LEVEL = 1e-5  # two-sided binomial test of our converged count against the paper's fraction: a correct
# reproduction is rejected with probability ≤ 1e-5 (if the paper's fraction were exact)
WRONG_FRACTION = 0.52  # a control: "about half" of the runs converge
MIN_SINGULAR_RATIO = 0.3  # "bounded away from rank 1": σ₂/σ₁ ≥ 0.3, i.e. stable rank ≥ 1.09, in both layers
MIN_STUCK_LOSS = 0.49  # non-converged runs sit at a loss ≥ ½σ_min(Y)² = ½ (one target left unfit), minus slack
MAX_SLOW_FRACTION = 1e-4  # of the non-converged runs, those still between the threshold and the stuck level at T:
# none among the ≤ 1152 runs of the CPU profiles (the fraction allows 0 there); 4 of 737014 at the gpu profile
TWO_TARGETS_LOSS = 0.51  # a control: "every non-converged run has both targets unfit" (loss ≥ ½ + ½ = 1)


def binomial_p_value(count: int, runs: int, fraction: float) -> float:
    """Two-sided exact binomial test of ``count`` successes in ``runs`` against success probability ``fraction``."""
    return float(binomtest(count, runs, fraction).pvalue)


FRACTION = "about 79 of 288 runs reach loss < 1e-4 (the others are stuck at a target)"
FULL_RANK = "every converged run has both layers of rank 2, stable rank bounded away from 1"


@criterion("a two-sided exact binomial test does not reject the claimed converged fraction at the level")
def fraction_consistent(converged: int, runs: int, fraction: float, level: float) -> Decision:
    p_value = binomial_p_value(converged, runs, fraction)
    return Decision(p_value >= level, f"{converged}/{runs} against {fraction:.4f}: p-value {p_value:.3g} (rejected "
                    f"if < {level:g})", {"binomial_p_value": p_value, "claimed_fraction": fraction})


@criterion("every given run has σ₂/σ₁ ≥ threshold in both layers")
def far_from_rank_one(singular_ratios: np.ndarray, threshold: float) -> Decision:
    if singular_ratios.size == 0:
        return Decision(None, "no converged run")
    least = float(singular_ratios.min())
    return Decision(least >= threshold, f"min σ₂/σ₁ over {len(singular_ratios)} runs and both layers = {least:.4f} "
                    f"(pass if ≥ {threshold})", {"min_singular_ratio": least, "threshold": threshold})


@criterion("all but at most a fraction max_slow_fraction of the non-converged runs end at loss ≥ the stuck level")
def stuck_at_target(final_losses: np.ndarray, stuck_level: float, max_slow_fraction: float) -> Decision:
    least = float(final_losses.min()) if final_losses.size else float("inf")
    slow = int(np.sum(final_losses < stuck_level))
    allowed = int(np.floor(max_slow_fraction * final_losses.size))
    return Decision(slow <= allowed, f"{slow} of {final_losses.size} non-converged runs end below {stuck_level} "
                    f"(slow, not stuck; pass if ≤ {allowed}, a fraction {max_slow_fraction:g}); min final loss "
                    f"{least:.4g}", {"min_non_converged_loss": least, "slow_runs": slow, "slow_runs_allowed": allowed})


@claim(
    id="rank.exp.fig1",
    ref="Sec. 3.1, Fig. 1",
    kind="experiment",
    title="GD from tiny initializations converges in about a quarter of the runs, never to a low-rank network",
    statement=("On two unit inputs at angle $90.58 degree$ with targets $e_1, e_2$, gradient descent on the square "
               "loss of $x |-> V sigma(W x)$, $W, V in RR^(2 times 2)$, from rows of $W$ and columns of $V$ uniform on "
               "the circle of radius $10^(-4)$, reaches loss $< 10^(-4)$ by time $300$ in about $79$ of $288$ runs, "
               "and every run that does has both layers of rank 2 with stable rank "
               "$norm(W)_F^2 \\/ norm(W)_sigma^2$ bounded away from 1."),
    hypotheses=["data of Sec. 3.1 (satisfy Assumptions 1 and 2)", "initialization radius 1e-4, uniform directions",
                "full-batch GD on $1/2 sum_i norm(N(x_i) - y_i)^2$, horizon $T = eta t = 300$",
                "converged: final loss < 1e-4"],
    conclusions={FRACTION: "confirmed", FULL_RANK: "confirmed"},
    profiles={
        "quick": "288 runs, step 1e-2 for 3·10⁴ steps (same horizon T = 300), float64 GD in the compiled kernel "
                 "(on the CPU; on a GPU where one is present and faster)",
        "full": "1152 runs, step 1e-2 for 3·10⁴ steps",
        "paper": "the paper's protocol: 288 runs, step 1e-4 for 3·10⁶ epochs (compiled kernel: seconds on one CPU "
                 "core; on a Dask cluster with --scheduler)",
        "gpu": "the paper's protocol on 10⁶ runs (the compiled kernel on a GPU): the converged fraction with its "
               "99.9 % Clopper–Pearson interval next to the paper's 79/288, the paper's count tested against it",
    },
    notes=[("The paper does not state the loss normalization; Eq. (1) (½Σ) is used, so step η for t epochs is "
            "gradient-flow time ηt. On 288 or 1152 runs no run is slow: final losses are either < 1e-20 or at "
            "0.5 / 1.0, so the convergence threshold and the horizon are not critical. On 10⁶ runs (the gpu profile, "
            "measured on an H100) 4 of the 737,014 runs that do not converge were still between 3.7e-4 and 0.49 at "
            "T = 300: slow, not stuck. The stuck-at-a-target check therefore allows a fraction 1e-4 of slow runs, "
            "which admits none at the CPU profiles' sizes."),
           ("Step size of the quick profile: on 288 runs, steps 1e-2 and 3e-2 at T = 300 converge on exactly the "
            "same runs as step 1e-3, with stable ranks within 0.003."),
           "Thm 3 does not apply to this experiment (v(0) ≠ 0); Thm 2 does (1e-4 < 1/2).",
           ("The binomial test treats the paper's 79/288 as the true fraction, ignoring its own sampling error; at "
            "level 1e-5 a correct reproduction is rejected in at most 1e-5 of seeds (somewhat more if the true "
            "fraction differs slightly from 79/288, e.g. 25–27% as measured here).")],
)
def check_fig1(ctx: Context) -> None:
    steps = ctx.pick(quick=round(HORIZON / QUICK_STEP_SIZE), paper=PAPER_EPOCHS)
    step_size = ctx.pick(quick=QUICK_STEP_SIZE, paper=PAPER_STEP_SIZE)
    # full: 4× the paper's runs; gpu: the paper's protocol on 10⁶ runs (a 99.9 % interval about ±0.0015 wide)
    runs = ctx.pick(quick=PAPER_RUNS, full=4 * PAPER_RUNS, paper=PAPER_RUNS, gpu=1_000_000)
    stats = run_fig1(steps, step_size, runs, seed=int(ctx.rng("initialization").integers(2**32)),
                     device=ctx.device, scheduler=ctx.scheduler, progress=f"{ctx.claim_id}: {runs} runs")
    converged = stats.converged
    paper_fraction = PAPER_CONVERGED / PAPER_RUNS
    fraction = stats.converged_count / runs
    low, high = clopper_pearson(stats.converged_count, runs, CONFIDENCE)
    paper_low, paper_high = clopper_pearson(PAPER_CONVERGED, PAPER_RUNS, CONFIDENCE)
    protocol = {"runs": runs, "steps": steps, "step_size": step_size, "horizon": steps * step_size,
                "seconds": stats.seconds, "engine": stats.engine}
    figures = {"converged": stats.converged_count, "fraction": fraction, "fraction_ci_low": low,
               "fraction_ci_high": high, "confidence": CONFIDENCE, "paper_converged": PAPER_CONVERGED,
               "paper_runs": PAPER_RUNS, "paper_fraction": paper_fraction, "paper_fraction_ci_low": paper_low,
               "paper_fraction_ci_high": paper_high, **protocol}
    beside = (f"{fraction:.4f}, {CONFIDENCE:.1%} Clopper–Pearson interval [{low:.4f}, {high:.4f}], next to the "
              f"paper's 79/288 = {paper_fraction:.4f} [{paper_low:.3f}, {paper_high:.3f}]")

    # 1. the converged fraction, beside the paper's (a printed figure, compared against)
    if runs > 100 * PAPER_RUNS:  # our fraction is the precise one: the paper's count is tested against it
        ctx.support("converged fraction vs the paper's 79/288", "numeric",
                    fraction_consistent(PAPER_CONVERGED, PAPER_RUNS, fraction, TEST_LEVEL),
                    f"{stats.converged_count}/{runs} runs reach loss < {CONVERGENCE_THRESHOLD:g}: {beside}; "
                    "two-sided exact binomial test of the paper's 79 of 288 against the measured fraction",
                    figures, conclusion=FRACTION)
        ctx.control("the paper's count against a fraction of one half",
                    fraction_consistent(PAPER_CONVERGED, PAPER_RUNS, WRONG_FRACTION, TEST_LEVEL),
                    "the same binomial test rejects 'about half of the runs converge'")
    else:
        ctx.support("converged fraction vs the paper's 79/288", "numeric",
                    fraction_consistent(stats.converged_count, runs, paper_fraction, TEST_LEVEL),
                    f"{stats.converged_count}/{runs} runs reach loss < {CONVERGENCE_THRESHOLD:g} ({beside}); "
                    "two-sided exact binomial test against the paper's p = 79/288", figures, conclusion=FRACTION)
        ctx.control("the same runs against a claimed fraction of one half",
                    fraction_consistent(stats.converged_count, runs, WRONG_FRACTION, TEST_LEVEL),
                    "the same binomial test rejects 'about half of the runs converge'")
    stuck = stats.final_loss[~converged]
    ctx.support("non-converged runs are stuck at a target", "numeric",
                stuck_at_target(stuck, MIN_STUCK_LOSS, MAX_SLOW_FRACTION),
                f"their loss is at least ½σ_min(Y)² (one target left unfit), not slow: max loss of converged runs "
                f"= {float(np.max(stats.final_loss[converged], initial=0.0)):.3g}",
                {"runs_at_half": int(np.sum(below(np.abs(stuck - 0.5), 1e-3))),
                 "runs_at_one": int(np.sum(below(np.abs(stuck - 1.0), 1e-3)))}, conclusion=FRACTION)
    ctx.control("stuck level above one target's loss (both targets unfit)",
                stuck_at_target(stuck, TWO_TARGETS_LOSS, MAX_SLOW_FRACTION),
                "the same count rejects 'every non-converged run has left both targets unfit': most sit at ½")

    # 2. every converged run: both layers of rank 2, stable rank bounded away from 1 (the histogram of Fig. 1)
    ratios, ranks = stats.singular_ratios[converged], stats.stable_ranks[converged]
    ctx.support("converged runs are far from rank 1", "numeric", far_from_rank_one(ratios, MIN_SINGULAR_RATIO),
                f"stable rank ≥ {1 + MIN_SINGULAR_RATIO**2:.2f} in both layers of every converged run",
                {"min_stable_rank_W1": float(ranks[:, 0].min()) if ranks.size else float("nan"),
                 "min_stable_rank_W2": float(ranks[:, 1].min()) if ranks.size else float("nan"),
                 "max_stable_rank_W1": float(ranks[:, 0].max()) if ranks.size else float("nan"),
                 "max_stable_rank_W2": float(ranks[:, 1].max()) if ranks.size else float("nan")},
                plot=histogram("Fig. 1: stable ranks at convergence",
                               {"W(1)": ranks[:, 0], "W(2)": ranks[:, 1]}, xlabel="stable rank",
                               reference={"rank one": 1.0, "threshold": 1 + MIN_SINGULAR_RATIO**2}),
                conclusion=FULL_RANK)
    ctx.control("threshold σ₂/σ₁ ≥ 0.999 (isotropic layers)", far_from_rank_one(ratios, 0.999),
                "the same test on the same converged runs rejects the claim that both layers are (nearly) multiples "
                "of orthogonal matrices: it separates stable ranks")
