"""Linear tensor networks: f(x; v_1..v_L) = M(x)∘(v_1, ..., v_L), with M linear in x.

M is stored by its values on the standard basis, ``basis[k] = M(e_k)`` of shape (k_1, ..., k_L), so that
f(x) = ⟨x, β(θ)⟩ with β_k = M(e_k)∘(v_1, ..., v_L). The parameter vector θ concatenates v_1, ..., v_L.
Encoders give the diagonal, circular-convolutional and fully-connected networks in this form.
"""

from __future__ import annotations

import functools
import string
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from numerics import backend as B
from numerics.backend import Array

_KERNEL_SOURCE = '''import numba
import numpy as np


@numba.njit(nogil=True, error_model="numpy", cache=True)
def beta_jacobian(theta, coordinate, index, value, d, with_jacobian):
    entries, degree = index.shape
    beta = np.zeros(d)
    jacobian = np.zeros((d, theta.shape[0]) if with_jacobian else (0, 0))
    for e in range(entries):
        product = value[e]
        for ell in range(degree):
            product *= theta[index[e, ell]]
        beta[coordinate[e]] += product
        if with_jacobian:
            for ell in range(degree):
                partial = value[e]
                for m in range(degree):
                    if m != ell:
                        partial *= theta[index[e, m]]
                jacobian[coordinate[e], index[e, ell]] += partial
    return beta, jacobian


@numba.njit(nogil=True, error_model="numpy", cache=True)
def hessian_contraction(theta, coordinate, index, value, g):
    entries, degree = index.shape
    hessian = np.zeros((theta.shape[0], theta.shape[0]))
    for e in range(entries):
        weight = value[e] * g[coordinate[e]]
        if weight == 0.0:
            continue
        for ell in range(degree):
            for m in range(degree):
                if m != ell:
                    partial = weight
                    for o in range(degree):
                        if o != ell and o != m:
                            partial *= theta[index[e, o]]
                    hessian[index[e, ell], index[e, m]] += partial
    return hessian
'''
_KERNEL_LOCK = threading.Lock()


@functools.cache
def _kernels():
    """β(θ), ∂β/∂θ and Σ_k g_k ∂²β_k/∂θ² of any linear tensor network from its basis' nonzero entries, compiled once
    per machine (numba, cached on disk with the other generated kernels)."""
    from numerics.compiled_descent import load_generated

    with _KERNEL_LOCK:
        return load_generated(_KERNEL_SOURCE, "tensor_beta_")


def _float_vector(theta: Array) -> bool:
    return type(theta) is np.ndarray and theta.dtype == np.float64 and theta.ndim == 1


def _float_matrix(X: Array) -> bool:
    return type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2


def _einsum(spec: str, *operands: Array) -> Array:
    """numpy's einsum straight away for numpy operands (the common case), else the backend's dispatch."""
    if all(type(x) is np.ndarray for x in operands):
        return np.einsum(spec, *operands)
    return B.einsum(spec, *operands)


@dataclass(frozen=True, eq=False)
class LinearTensorNetwork:
    """A linear tensor network stored by M(e_k) for each basis vector e_k of the input."""

    basis: np.ndarray  # (d, k_1, ..., k_L)

    # shapes, slices and einsum specs are cached: flows and descents call forward and vjp 10⁴–10⁶ times on tiny
    # arrays, where rebuilding them and the backend's type dispatch cost more than the contractions
    @functools.cached_property
    def degree(self) -> int:
        return self.basis.ndim - 1

    @property
    def d_in(self) -> int:
        return self.basis.shape[0]

    d_out = 1

    @functools.cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(self.basis.shape[1:])

    @property
    def n_params(self) -> int:
        return sum(self.sizes)

    @functools.cached_property
    def _slices(self) -> tuple[slice, ...]:
        bounds = np.cumsum((0, *self.sizes))
        return tuple(slice(int(a), int(b)) for a, b in zip(bounds, bounds[1:]))

    def split(self, theta: Array) -> list[Array]:
        return [theta[..., part] for part in self._slices]

    def data_tensor(self, x: Array) -> Array:
        """M(x) for one input x."""
        return _einsum("k,k...->...", x, self._basis_like(x))

    def _basis_like(self, x: Array) -> Array:
        if type(x) is np.ndarray and x.dtype != object:
            return self.basis
        if B.is_torch(x):
            import torch

            return torch.as_tensor(self.basis, dtype=x.dtype, device=x.device)
        return self._exact_basis if np.asarray(x).dtype == object else self.basis

    @functools.cached_property
    def _exact_basis(self) -> np.ndarray:
        """The basis as exact numbers (floats at their binary value), so exact inputs stay exact."""
        return B.to_object(self.basis, "exact")

    @functools.cached_property
    def _specs(self) -> dict[int | None, str]:
        """The einsum spec of :meth:`_contract` for each open mode (None: all contracted)."""
        lead, modes = "z", string.ascii_lowercase[: self.degree]
        return {free: ",".join([f"{lead}{modes}", *(modes[ell] for ell in range(self.degree) if ell != free)])
                + f"->{lead}" + (modes[free] if free is not None else "")  # degree 1, mode open: "za->za"
                for free in (None, *range(self.degree))}

    def _contract(self, tensor: Array, vectors: Sequence[Array], free: int | None) -> Array:
        """tensor∘(v_1, ..., v_L), leaving mode ``free`` (0-based, counted after the leading axis) open."""
        operands = [v for ell, v in enumerate(vectors) if ell != free]
        return _einsum(self._specs[free], tensor, *operands)

    @functools.cached_property
    def _entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The basis' nonzero entries: input coordinate k, the parameter index of each mode's entry, the value."""
        where = np.nonzero(self.basis)
        offsets = np.cumsum((0, *self.sizes))[:-1]
        index = np.ascontiguousarray(np.stack(where[1:], axis=1) + offsets, dtype=np.int64)
        return (np.ascontiguousarray(where[0], dtype=np.int64), index.reshape(-1, self.degree),
                np.ascontiguousarray(self.basis[where], dtype=np.float64))

    def compiled_beta(self, theta: np.ndarray, with_jacobian: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(β(θ), ∂β/∂θ as d × n_params, or an empty array) for one float64 vector θ in one compiled call: sums over
        the basis' nonzero entries, so equal to :meth:`beta`'s contractions up to rounding
        (tests/test_tensor_network.py). :meth:`beta`, :meth:`forward`, :meth:`vjp` and :meth:`jacobian` take this path
        for such θ and float data."""
        return _kernels().beta_jacobian(np.ascontiguousarray(theta), *self._entries, self.d_in, with_jacobian)

    def compiled_hessian(self, theta: np.ndarray, g: np.ndarray) -> np.ndarray:
        """Σ_k g_k ∂²β_k/∂θ² (n_params × n_params, symmetric) for one float64 vector θ: the second-order part of the
        Jacobian of a descent direction Jᵀg (:class:`numerics.compiled_fields.TensorNetworkField`)."""
        return _kernels().hessian_contraction(np.ascontiguousarray(theta), *self._entries,
                                              np.ascontiguousarray(g, dtype=np.float64))

    def beta(self, theta: Array) -> Array:
        """The end-to-end linear predictor β(θ) ∈ R^d."""
        if _float_vector(theta):
            return self.compiled_beta(theta)[0]
        return self._contract(self._basis_like(theta), self.split(theta), None)

    def forward(self, theta: Array, X: Array) -> Array:
        return (X @ self.beta(theta))[:, None]

    def vjp(self, theta: Array, X: Array, G: Array) -> Array:
        """∇_θ Σ_i G_i f(x_i): block l is M(Xᵀ G)∘(v_1, .., I, .., v_L)."""
        if _float_vector(theta) and _float_matrix(X) and _float_matrix(G):
            return (X.T @ G[:, 0]) @ self.compiled_beta(theta, True)[1]
        m = (X.T if type(X) is np.ndarray and X.ndim == 2 else B.transpose(X)) @ G[:, 0]  # Xᵀ G ∈ R^d
        tensor = self.data_tensor(m)[None]
        vectors = self.split(theta)
        grads = [self._contract(tensor, vectors, ell)[0] for ell in range(self.degree)]
        if B.is_torch(grads[0]):
            import torch

            return torch.cat(grads)
        return np.concatenate(grads)

    def jacobian(self, theta: Array, X: Array) -> Array:
        """∂f(x_i)/∂θ as n × 1 × n_params."""
        if _float_vector(theta) and _float_matrix(X):
            return (X @ self.compiled_beta(theta, True)[1])[:, None, :]
        ones = X.new_ones((1, 1)) if B.is_torch(X) else np.ones((1, 1), dtype=np.asarray(X).dtype)  # keeps exactness
        rows = [self.vjp(theta, X[i:i + 1], ones) for i in range(X.shape[0])]
        if B.is_torch(X):
            import torch

            return torch.stack(rows)[:, None, :]
        return np.stack(rows)[:, None, :]


def diagonal_tensor(d: int, depth: int) -> LinearTensorNetwork:
    """Superdiagonal M(x): f = ⟨x ⊙ w_1 ⊙ ⋯ ⊙ w_{L-1}, w_L⟩."""
    basis = np.zeros((d,) + (d,) * depth)
    for k in range(d):
        basis[(k,) * (depth + 1)] = 1.0
    return LinearTensorNetwork(basis)


def convolutional_tensor(d: int, filter_lengths: Sequence[int]) -> LinearTensorNetwork:
    """[M(x)]_{j_1..j_L} = x_{(Σ_l j_l) mod d} (0-based), filter lengths k_1..k_{L-1}; the last has length d."""
    sizes = list(filter_lengths) + [d]
    basis = np.zeros((d, *sizes))
    for js in product(*(range(k) for k in sizes)):
        basis[(sum(js) % d, *js)] = 1.0
    return LinearTensorNetwork(basis)


def fully_connected_tensor(widths: Sequence[int]) -> LinearTensorNetwork:
    """f = xᵀ W_1 ⋯ W_{L-1} w_L with W_l ∈ R^{d_l × d_{l+1}}, v_l = vec(W_l) column-major, v_L = w_L.

    ``widths`` = (d_1, ..., d_L) with d_1 the input dimension.
    """
    widths = list(widths)
    depth = len(widths)
    sizes = [widths[ell] * widths[ell + 1] for ell in range(depth - 1)] + [widths[-1]]
    basis = np.zeros((widths[0], *sizes))
    for a in product(*(range(w) for w in widths)):
        index = [a[ell] + a[ell + 1] * widths[ell] for ell in range(depth - 1)] + [a[-1]]
        basis[(a[0], *index)] = 1.0
    return LinearTensorNetwork(basis)
