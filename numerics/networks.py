"""Bias-free feed-forward networks: fully-connected, diagonal, convolutional (shared weights), linear or ReLU.

A network is a stack of layers; layer l maps its own parameter vector u_l to a matrix W_l (dense, diagonal,
or a weight-sharing pattern such as a convolution). This is the class N of paper 001: every layer is linear in
its parameters, there is no sharing across layers, and the network is positively homogeneous of degree
``depth``. Inputs are the rows of ``X`` (n × d_in); outputs are n × d_out.

All methods run unchanged on float64 numpy arrays, object arrays (sympy exact numbers, mpmath mpf) and torch
tensors; see :mod:`numerics.backend`. ReLU derivatives use σ'(0) = ``relu_slope_at_zero`` (0 by default).
Leaky ReLU, σ(z) = max(z, a·z) with 0 < a < 1 (``negative_slope``, exact numbers stay exact), is positively
homogeneous too; its derivative is a + (1 − a)·ReLU'(z), so σ'(0) = a + (1 − a)·``relu_slope_at_zero``.
The engines that resolve ReLU kinks (Clarke subgradients, flow kink events, pattern enumeration) treat only
``"relu"``; a leaky network is smooth to them away from its kinks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from numerics import backend as B
from numerics.backend import Array

Activation = Literal["relu", "linear", "leaky_relu"]


class Layer:
    """A linear map u ↦ W(u) from a layer's parameters to its (d_out × d_in) weight matrix."""

    shape: tuple[int, int]
    n_params: int

    def matrix(self, u: Array) -> Array:
        """W(u); a leading batch axis of ``u`` gives a batch of matrices."""
        raise NotImplementedError

    def pullback(self, G: Array) -> Array:
        """Adjoint map: the gradient with respect to u of ⟨G, W(u)⟩, for G of shape (..., d_out, d_in)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Dense(Layer):
    """A fully-connected layer with a d_out × d_in weight matrix."""

    d_out: int
    d_in: int

    @property
    def shape(self) -> tuple[int, int]:  # type: ignore[override]
        return (self.d_out, self.d_in)

    @property
    def n_params(self) -> int:  # type: ignore[override]
        return self.d_out * self.d_in

    def matrix(self, u: Array) -> Array:
        return u.reshape(*u.shape[:-1], self.d_out, self.d_in)

    def pullback(self, G: Array) -> Array:
        return G.reshape(*G.shape[:-2], self.n_params)


@dataclass(frozen=True)
class Diagonal(Layer):
    """A diagonal layer: d weights acting coordinate-wise."""

    d: int

    @property
    def shape(self) -> tuple[int, int]:  # type: ignore[override]
        return (self.d, self.d)

    @property
    def n_params(self) -> int:  # type: ignore[override]
        return self.d

    def matrix(self, u: Array) -> Array:
        return B.diag_embed(u)

    def pullback(self, G: Array) -> Array:
        return B.diagonal(G)


@dataclass(frozen=True)
class Shared(Layer):
    """Weight sharing: ``index[i, j] = k > 0`` means W_ij = u_k (1-based), ``0`` means W_ij = 0."""

    index: tuple[tuple[int, ...], ...]
    _basis: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = np.asarray(self.index, dtype=int)
        if index.ndim != 2 or index.min() < 0:
            raise ValueError("weight-sharing index must be a 2-D array of non-negative integers")
        p = int(index.max())
        if sorted(set(index.ravel()) - {0}) != list(range(1, p + 1)):
            raise ValueError("weight-sharing index must use every parameter 1..p")
        basis = np.zeros((p, *index.shape))
        for k in range(p):
            basis[k] = index == k + 1
        object.__setattr__(self, "_basis", basis)

    @property
    def shape(self) -> tuple[int, int]:  # type: ignore[override]
        return self._basis.shape[1:]

    @property
    def n_params(self) -> int:  # type: ignore[override]
        return self._basis.shape[0]

    def _basis_like(self, x: Array) -> Array:
        if B.is_torch(x):
            import torch

            return torch.as_tensor(self._basis, dtype=x.dtype, device=x.device)
        if np.asarray(x).dtype == object:
            return self._basis.astype(int).astype(object)  # 0/1 as Python ints: exact numbers stay exact
        return self._basis

    def matrix(self, u: Array) -> Array:
        return B.einsum("...p,pij->...ij", u, self._basis_like(u))

    def pullback(self, G: Array) -> Array:
        return B.einsum("...ij,pij->...p", G, self._basis_like(G))


def circulant(d: int, k: int | None = None) -> Shared:
    """Circular correlation with a length-k filter (k = d: full length): (W h)_i = Σ_j u_j h_{(i+j) mod d}."""
    k = d if k is None else k
    index = np.zeros((d, d), dtype=int)
    for i in range(d):
        for j in range(k):
            index[i, (i + j) % d] = j + 1
    return Shared(tuple(map(tuple, index)))


def disjoint_patches(patch: int, n_patches: int) -> Shared:
    """One filter of length ``patch`` applied to ``n_patches`` disjoint consecutive patches of the input."""
    index = np.zeros((n_patches, patch * n_patches), dtype=int)
    for i in range(n_patches):
        index[i, i * patch:(i + 1) * patch] = np.arange(1, patch + 1)
    return Shared(tuple(map(tuple, index)))


@dataclass(frozen=True)
class Network:
    """A bias-free feed-forward network: its layers, the activation (ReLU, leaky ReLU or linear), σ'(0) for
    ReLU and the negative slope a of leaky ReLU."""

    layers: tuple[Layer, ...]
    activation: Activation = "relu"
    relu_slope_at_zero: float = 0.0
    negative_slope: float = 0.0  # a ∈ (0, 1), leaky ReLU only

    def __post_init__(self) -> None:
        if self.activation not in ("relu", "linear", "leaky_relu"):
            raise ValueError(f"unknown activation {self.activation!r}")
        if self.activation == "leaky_relu" and not 0 < float(self.negative_slope) < 1:
            raise ValueError(f"leaky ReLU needs a negative slope in (0, 1), got {self.negative_slope}")
        if self.activation != "leaky_relu" and self.negative_slope != 0:
            raise ValueError("negative_slope is for leaky ReLU networks")
        for lower, upper in zip(self.layers, self.layers[1:]):
            if upper.shape[1] != lower.shape[0]:
                raise ValueError(f"layer widths do not chain: {lower.shape} then {upper.shape}")

    # -- structure ------------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        return len(self.layers)

    @property
    def degree(self) -> int:
        """Homogeneity degree: Φ(cθ; x) = c^degree Φ(θ; x) for c > 0."""
        return len(self.layers)

    @property
    def d_in(self) -> int:
        return self.layers[0].shape[1]

    @property
    def d_out(self) -> int:
        return self.layers[-1].shape[0]

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(layer.n_params for layer in self.layers)

    @cached_property
    def n_params(self) -> int:
        return sum(self.sizes)

    @cached_property
    def _slices(self) -> tuple[slice, ...]:
        ends = np.cumsum((0, *self.sizes)).tolist()
        return tuple(slice(start, end) for start, end in zip(ends, ends[1:]))

    def split(self, theta: Array) -> list[Array]:
        """Per-layer parameter vectors (views) of a flat θ; a leading batch axis is kept."""
        return [theta[..., part] for part in self._slices]

    def join(self, parts: Sequence[Array]) -> Array:
        """Flat θ from per-layer parameters (matrices of dense layers are flattened row-major); one part per layer,
        each a parameter vector of the layer's size or, for a dense layer, its d_out × d_in matrix (a leading batch
        axis is kept). Parts of another size raise ValueError."""
        if len(parts) != self.depth:
            raise ValueError(f"join needs one part per layer: {len(parts)} parts for {self.depth} layers")
        flat = []
        for index, (layer, p) in enumerate(zip(self.layers, parts)):
            if isinstance(layer, Dense) and tuple(p.shape[-2:]) == layer.shape:  # a matrix (or a batch of them)
                p = p.reshape(*p.shape[:-2], -1)
            if p.ndim == 0 or p.shape[-1] != layer.n_params:
                raise ValueError(f"layer {index + 1} has {layer.n_params} parameters "
                                 f"(shape {layer.shape}); got a part of shape {tuple(p.shape)}")
            flat.append(p)
        if any(B.is_torch(p) for p in flat):
            import torch

            return torch.cat(flat, dim=-1)
        return np.concatenate([np.asarray(p) for p in flat], axis=-1)

    def matrices(self, theta: Array) -> list[Array]:
        return [layer.matrix(u) for layer, u in zip(self.layers, self.split(theta))]

    # -- evaluation -----------------------------------------------------------------------------
    def _sigma(self, z: Array) -> Array:
        if self.activation == "leaky_relu":
            a = self.negative_slope
            return z * (a + (1 - a) * B.positive(z))
        return z * B.positive(z) if self.activation == "relu" else z

    def _slopes(self, z: Array) -> Array:
        """σ'(z) with the network's convention at 0 (ReLU and leaky ReLU)."""
        derivative = B.relu_derivative(z, self.relu_slope_at_zero)
        if self.activation == "leaky_relu":
            a = self.negative_slope
            return a + (1 - a) * derivative
        return derivative

    def preactivations(self, theta: Array, X: Array) -> list[Array]:
        """Pre-activations h_1..h_{depth-1} of the hidden layers, each n × d_l."""
        out, h = [], X
        for W in self.matrices(theta)[:-1]:
            z = h @ B.transpose(W)
            out.append(z)
            h = self._sigma(z)
        return out

    def activation_pattern(self, theta: Array, X: Array) -> list[np.ndarray]:
        """Sign of every hidden pre-activation (+1, 0, −1), as int arrays."""
        return [np.sign(B.to_float(z)).astype(int) for z in self.preactivations(theta, X)]

    def forward(self, theta: Array, X: Array) -> Array:
        h = X
        matrices = self.matrices(theta)
        for W in matrices[:-1]:
            h = self._sigma(h @ B.transpose(W))
        return h @ B.transpose(matrices[-1])

    def _backprop(self, theta: Array, X: Array, G: Array, per_sample: bool) -> Array:
        """Gradient of Σ_i ⟨G_i, Φ(θ; x_i)⟩; with ``per_sample`` G is (n, d_out, d_out) one-hot blocks.

        A leading run axis on θ (runs × p) and G (runs × n × d_out) gives one gradient per run.
        """
        matrices = self.matrices(theta)
        hidden, slopes, h = [X], [], X
        for W in matrices[:-1]:
            z = h @ B.transpose(W)
            if self.activation in ("relu", "leaky_relu"):
                slopes.append(self._slopes(z))
                z = z * slopes[-1]  # σ(z) = z·σ'(z) whatever the convention at 0
            hidden.append(z)
            h = z
        grads = [None] * self.depth
        delta = G  # (..., n, d_out) or (n, o, d_out)
        for k in range(self.depth - 1, -1, -1):
            if per_sample:
                gW = B.einsum("noi,nj->noij", delta, hidden[k])
            else:
                gW = B.transpose(delta) @ hidden[k]
            grads[k] = self.layers[k].pullback(gW)
            if k > 0:
                delta = delta @ matrices[k]
                if slopes:
                    delta = delta * (slopes[k - 1][:, None, :] if per_sample else slopes[k - 1])
        if per_sample:
            grads = [g.reshape(g.shape[0], g.shape[1], -1) for g in grads]
        if B.is_torch(grads[0]):
            import torch

            return torch.cat(grads, dim=-1)
        return np.concatenate(grads, axis=-1)

    def vjp(self, theta: Array, X: Array, G: Array) -> Array:
        """∇_θ Σ_i ⟨G_i, Φ(θ; x_i)⟩ for G of shape n × d_out (the backward pass of any loss).

        Batched: θ of shape runs × p and G of shape runs × n × d_out give runs × p.
        """
        return self._backprop(theta, X, G, per_sample=False)

    def jacobian(self, theta: Array, X: Array) -> Array:
        """∂Φ(θ; x_i)_o / ∂θ as an array n × d_out × n_params."""
        n = X.shape[0]
        if B.is_torch(X):
            import torch

            eye = torch.eye(self.d_out, dtype=X.dtype, device=X.device).expand(n, -1, -1)
        else:
            eye = np.broadcast_to(np.eye(self.d_out, dtype=np.asarray(X).dtype), (n, self.d_out, self.d_out))
            if np.asarray(X).dtype == object:
                eye = np.vectorize(int, otypes=[object])(eye)
        return self._backprop(theta, X, eye, per_sample=True)


def scalar_outputs(model: Network, theta: Array, X: Array) -> Array:
    """Φ(θ; x_i) of a one-output model (a :class:`Network` or any model with the same ``forward``) as a vector of
    n; a model with several outputs is refused (ValueError) rather than silently read at one of them."""
    outputs = model.forward(theta, X)
    if outputs.shape[-1] != 1:
        raise ValueError(f"scalar_outputs needs a model with one output, not {outputs.shape[-1]}")
    return outputs.reshape(outputs.shape[:-1])


def fully_connected(widths: Sequence[int], activation: Activation = "relu",
                    relu_slope_at_zero: float = 0.0) -> Network:
    """Widths d_0 (input), d_1, ..., d_k (output)."""
    if len(widths) < 2:
        raise ValueError("a network needs an input and an output width")
    return Network(tuple(Dense(o, i) for i, o in zip(widths, widths[1:])), activation, relu_slope_at_zero)


def diagonal(d: int, depth: int, activation: Activation = "linear", relu_slope_at_zero: float = 0.0) -> Network:
    """Depth-m diagonal network: m − 1 diagonal layers, then a full output row (paper 001's definition)."""
    return Network(tuple([Diagonal(d)] * (depth - 1) + [Dense(1, d)]), activation, relu_slope_at_zero)


def circular_convolutional(d: int, depth: int, filter_lengths: Sequence[int] | None = None,
                           activation: Activation = "linear") -> Network:
    """Depth-L circular convolutions (filter lengths k_1..k_{L-1}, full length by default), then a full row."""
    lengths = list(filter_lengths) if filter_lengths is not None else [d] * (depth - 1)
    if len(lengths) != depth - 1:
        raise ValueError("need one filter length per hidden layer")
    return Network(tuple([circulant(d, k) for k in lengths] + [Dense(1, d)]), activation)


def leaky_relu_network(layers: Sequence[Layer], negative_slope: float, relu_slope_at_zero: float = 0.0) -> Network:
    """A leaky-ReLU network σ(z) = max(z, a·z), a = ``negative_slope`` ∈ (0, 1) (an exact number stays exact)."""
    return Network(tuple(layers), "leaky_relu", relu_slope_at_zero, negative_slope)


def strided_patches(kernel: int, stride: int, input_dim: int) -> Shared:
    """One filter of length ``kernel`` slid over the input with ``stride`` (overlapping when stride < kernel):
    row i reads x[i·stride : i·stride + kernel], for every window that fits (no padding)."""
    if not (1 <= stride and 1 <= kernel <= input_dim):
        raise ValueError(f"need 1 ≤ stride and 1 ≤ kernel ≤ input_dim, got {kernel}, {stride}, {input_dim}")
    windows = (input_dim - kernel) // stride + 1
    index = np.zeros((windows, input_dim), dtype=int)
    for i in range(windows):
        index[i, i * stride:i * stride + kernel] = np.arange(1, kernel + 1)
    return Shared(tuple(map(tuple, index)))
