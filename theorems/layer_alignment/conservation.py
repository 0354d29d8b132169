"""Invariants of gradient flow on deep linear networks (Ji & Telgarsky, Sec. 2, eq. (2)).

For W = (W_L, …, W_1) and any risk that depends on W only through the product W_L⋯W_1, the flow
dW_k/dt = −∂R/∂W_k keeps every adjacent-layer Gram difference W_{k+1}ᵀW_{k+1} − W_kW_kᵀ constant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy

from numerics import backend as B
from numerics.symbolic import (
    ZeroTest,
    generic_loss,
    gradient_flow,
    is_identically_zero,
    lie_derivative,
    weight_matrices,
)
from theorems.layer_alignment.criteria import zero_decision
from verify import Context, claim, criterion

Gap = Callable[[Sequence[np.ndarray], int], np.ndarray]

DIMS = (2, 3, 2, 1)  # d_0 (input), d_1, d_2, d_L = 1: the control below needs d_0 = d_2


def gram_gap(layers: Sequence, k: int):
    """The statement's quantity C_k = W_{k+1}ᵀW_{k+1} − W_kW_kᵀ (layers W_1..W_L, k is 1-based)."""
    lower, upper = layers[k - 1], layers[k]
    return B.transpose(upper) @ upper - lower @ B.transpose(lower)


def transposed_gap(layers: Sequence, k: int):
    """The negative control: the same Grams taken on the other side, W_{k+1}W_{k+1}ᵀ − W_kᵀW_k."""
    lower, upper = layers[k - 1], layers[k]
    return upper @ B.transpose(upper) - B.transpose(lower) @ lower


# -- the check, applied to a candidate invariant ----------------------------------------------------
def derivative_vanishes_for_every_shape(gap: Gap) -> ZeroTest:
    """d/dt gap along the flow, with every matrix and the loss gradient symbolic in shape and entries.

    Layers above k+1 and below k enter only through the products A = W_L⋯W_{k+2} and B = W_{k−1}⋯W_1, and the
    loss only through G = ∂R/∂(W_L⋯W_1); so one noncommutative computation covers every depth, width and loss.
    """
    a, b, c, d = sympy.symbols("d_a d_b d_c d_0", integer=True, positive=True)
    above, upper = sympy.MatrixSymbol("A", 1, c), sympy.MatrixSymbol("V", c, b)
    lower, below = sympy.MatrixSymbol("W", b, a), sympy.MatrixSymbol("B", a, d)
    G = sympy.MatrixSymbol("G", 1, d)
    grad_upper = above.T * G * (lower * below).T  # ∂R/∂W_{k+1}
    grad_lower = (above * upper).T * G * below.T  # ∂R/∂W_k
    h = sympy.Symbol("h")  # d/dt Q(W(t)) = d/dh Q(W + h·dW/dt) at h = 0
    moved = gap([lower - h * grad_lower, upper - h * grad_upper], 1)
    return is_identically_zero(sympy.expand(moved).diff(h).subs(h, 0))


def derivative_vanishes_entrywise(gap: Gap, dims: Sequence[int], k: int) -> ZeroTest:
    """The same statement on explicit symbolic entries of a network with layer widths ``dims``."""
    layers = weight_matrices(dims)
    product = layers[-1]
    for W in reversed(layers[:-1]):
        product = product * W
    objective, _ = generic_loss(product)
    field = gradient_flow(objective, layers)
    return is_identically_zero(lie_derivative(gap(layers, k), layers, field))


@criterion("d/dt Q = 0 along gradient flow, every shape and loss (free matrix algebra)")
def conserved_every_shape(quantity: Gap):
    return zero_decision(derivative_vanishes_for_every_shape(quantity))


@criterion("d/dt Q = 0 along gradient flow on explicit symbolic entries, generic loss gradient")
def conserved_entrywise(quantity: Gap, widths: tuple[int, ...], k: int):
    return zero_decision(derivative_vanishes_entrywise(quantity, widths, k))


@claim(
    id="align.eq2",
    ref="Eq. (2) (= eq. (5)), Sec. 2",
    kind="equation",
    title="Adjacent-layer Gram differences are conserved by gradient flow",
    statement=("For a deep linear network $x |-> W_L dots.c W_1 x$ trained by gradient flow on any risk that "
               "depends on the weights only through $W_L dots.c W_1$, the matrix "
               "$W_(k+1)^T W_(k+1) - W_k W_k^T$ does not change in time, for every $1 <= k < L$."),
    hypotheses=["deep linear network, any layer widths", "risk differentiable in the end-to-end map",
                "continuous-time gradient flow (the discrete analogue is Lemma 8)"],
    conclusions={"W_(k+1)ᵀW_(k+1) − W_kW_kᵀ constant along gradient flow (every depth, width and loss)":
                 "certified"},
    profiles={
        "quick": "symbolic proof for all shapes in the free matrix algebra; explicit-entry Lie derivatives for "
                 "widths (2,3,2,1)",
        "full": "as quick",
        "paper": "as quick",
    },
    notes=["Read as in the arXiv version: $W_(k+1)^T W_(k+1) - W_k W_k^T$, the only placement of the transposes "
           "whose two sides have the same shape ($d_k times d_k$)."],
)
def check_eq2(ctx: Context) -> None:
    # the derivative of the quantity along the flow is the zero matrix, for every shape and loss
    ctx.prove("d/dt = 0 for all shapes and losses", "symbolic", conserved_every_shape(gram_gap),
              "noncommutative sympy: W_(k+1)ᵀ∂R/∂W_(k+1) = (∂R/∂W_k)W_kᵀ makes the derivative vanish")
    for k in range(1, len(DIMS) - 1):
        ctx.prove(f"d/dt = 0 entrywise, k = {k}", "symbolic", conserved_entrywise(gram_gap, DIMS, k),
                  f"explicit entries, widths {DIMS}, generic loss gradient")
    # negative control: the Grams taken on the other side are not conserved
    ctx.control("transposed Grams", conserved_entrywise(transposed_gap, DIMS, 1),
                "W_(k+1)W_(k+1)ᵀ − W_kᵀW_k in place of W_(k+1)ᵀW_(k+1) − W_kW_kᵀ",
                "a random rational point gives a nonzero derivative")


# -- align.eq3: the trace of eq. (2) ---------------------------------------------------------------------------
def _squared_norm(W):
    return sum(np.asarray(W, dtype=object).ravel() ** 2)


def frobenius_gap(layers: Sequence, k: int):
    """The statement's quantity of eq. (3): ‖W_{k+1}‖_F² − ‖W_k‖_F² (the trace of gram_gap)."""
    return _squared_norm(layers[k]) - _squared_norm(layers[k - 1])


def frobenius_sum(layers: Sequence, k: int):
    """The negative control: ‖W_{k+1}‖_F² + ‖W_k‖_F²."""
    return _squared_norm(layers[k]) + _squared_norm(layers[k - 1])


@claim(
    id="align.eq3",
    ref="Eq. (3), Sec. 2.1 (and eq. (7))",
    kind="equation",
    title="Differences of squared Frobenius norms are conserved by gradient flow",
    statement=("Along gradient flow $norm(W_(k+1)(t))_F^2 - norm(W_(k+1)(0))_F^2 = norm(W_k (t))_F^2 - "
               "norm(W_k (0))_F^2$ for every $1 <= k < L$: all layers' squared Frobenius norms change at one "
               "common rate."),
    hypotheses=["deep linear network, any layer widths", "risk differentiable in the end-to-end map",
                "continuous-time gradient flow"],
    conclusions={"‖W_(k+1)‖_F² − ‖W_k‖_F² constant along gradient flow (every depth, width and loss)":
                 "certified"},
    profiles={"quick": "trace of the shape-free proof of eq. (2) and explicit-entry Lie derivatives",
              "full": "as quick", "paper": "as quick"},
)
def check_eq3(ctx: Context) -> None:
    ctx.prove("trace of eq. (2)", "symbolic", trace_of_conserved_gap(frobenius_gap),
              "d/dt C_k = 0 for C_k = W_(k+1)ᵀW_(k+1) − W_kW_kᵀ in the free matrix algebra (every shape), and "
              "tr C_k = ‖W_(k+1)‖_F² − ‖W_k‖_F² entrywise")
    for k in range(1, len(DIMS) - 1):
        ctx.prove(f"d/dt = 0 entrywise, k = {k}", "symbolic", conserved_entrywise(frobenius_gap, DIMS, k),
                  f"explicit entries, widths {DIMS}, generic loss gradient")
    ctx.control("sum of squared norms: trace", trace_of_conserved_gap(frobenius_sum),
                "‖W_(k+1)‖_F² + ‖W_k‖_F² is not the trace of C_k")
    ctx.control("sum of squared norms: derivative", conserved_entrywise(frobenius_sum, DIMS, 1),
                "‖W_(k+1)‖_F² + ‖W_k‖_F²: a random rational point gives a nonzero derivative")


@criterion("Q = tr(W_(k+1)ᵀW_(k+1) − W_kW_kᵀ) entrywise, and that Gram difference is conserved (every shape)")
def trace_of_conserved_gap(quantity: Gap):
    shape_free = derivative_vanishes_for_every_shape(gram_gap)
    layers = weight_matrices(DIMS)
    traces = [is_identically_zero(sympy.Matrix(gram_gap(layers, k)).trace() - quantity(layers, k))
              for k in range(1, len(DIMS) - 1)]
    if any(test.refuted for test in traces):
        return False, "the trace of C_k differs from Q at a random rational point"
    if shape_free.proved and all(test.proved for test in traces):
        return True, shape_free.description
    return None, "neither proved nor refuted"
