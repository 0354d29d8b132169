"""Objects shared by the claims of paper 002 (Yun, Krishnan, Mobahi).

Conventions (the paper's, with 0-based indices in code):

* DFT matrix ``[F]_{jk} = d^{-1/2} ψ^{jk}`` with ψ = exp(−2πi/d); F is symmetric and F^* (entrywise conjugate)
  is its inverse. Exact work happens in the cyclotomic field Q(ψ): an expression in the symbol ``OMEGA`` (= ψ)
  with rational (or surd) coefficients is zero iff its remainder modulo the cyclotomic polynomial Φ_d is zero.
* shifts: x_left = (x_2, …, x_d, x_1), x_right = (x_d, x_1, …, x_{d−1}).
* even vectors: x_{j+2} = x_{d−j}, i.e. symmetric about the first entry (x[k] = x[−k mod d] 0-based).
* Assumption 1 (orthogonal decomposability): M(x) = Σ_j [Sx]_j U_1[:, j] ⊗ ⋯ ⊗ U_L[:, j] with U_l^H U_l = I_m;
  the transformed parameters are η_l = U_l^T v_l (plain transpose, also for complex U_l) and ρ = η_1 ⊙ ⋯ ⊙ η_L,
  so that β = S^T ρ.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from numerics.tensor_network import LinearTensorNetwork
from numerics.tolerances import above

OMEGA = sympy.Symbol("omega")  # ψ = exp(−2πi/d) in exact DFT work


# -- the DFT, exactly and in floating point ------------------------------------------------------------------
def dft_matrix(d: int) -> np.ndarray:
    """F ∈ C^{d×d}, [F]_{jk} = d^{-1/2} exp(−2πi jk/d) (0-based j, k)."""
    j = np.arange(d)
    return np.exp(-2j * np.pi * np.outer(j, j) / d) / np.sqrt(d)


def exact_dft_matrix(d: int, conjugate: bool = False) -> sympy.Matrix:
    """F (or F^* with ``conjugate``) with entries OMEGA^{±jk mod d}/√d, exact in Q(ψ, √d)."""
    sign = -1 if conjugate else 1
    return sympy.Matrix(d, d, lambda j, k: OMEGA ** ((sign * j * k) % d) / sympy.sqrt(d))


DFT2 = np.array([[1.0, 1.0], [1.0, -1.0]])  # √2 F for d = 2 (real): ‖Fz‖₁ = ‖DFT2 z‖₁/√2 and DFT2⁻¹ = DFT2/2


@functools.cache
def _cyclotomic(d: int) -> sympy.Poly:
    return sympy.Poly(sympy.cyclotomic_poly(d, OMEGA), OMEGA)


@functools.lru_cache(maxsize=4096)  # structured tensors repeat the same few entries many times
def cyclotomic_reduce(expr: sympy.Expr, d: int) -> sympy.Expr:
    """The canonical representative of ``expr`` ∈ Q(ψ)[other symbols] (degree < φ(d) in OMEGA)."""
    expr = sympy.expand(expr)
    if not expr.has(OMEGA):
        return expr
    return sympy.expand(sympy.rem(expr, _cyclotomic(d).as_expr(), OMEGA))


def cyclotomic_is_zero(expr: sympy.Expr, d: int) -> bool:
    """Whether ``expr`` vanishes identically once OMEGA is read as ψ = exp(−2πi/d)."""
    return cyclotomic_reduce(expr, d) == 0


def cyclotomic_conjugate(expr: sympy.Expr, d: int) -> sympy.Expr:
    """Complex conjugation of Q(ψ): ψ ↦ ψ^{-1} = ψ^{d−1} (other symbols are real)."""
    return sympy.expand(expr).subs(OMEGA, OMEGA ** (d - 1))


# -- shifts and even vectors ---------------------------------------------------------------------------------
def shift_left(x: np.ndarray) -> np.ndarray:
    """x_left = (x_2, …, x_d, x_1) along the last axis."""
    return np.roll(x, -1, axis=-1)


def shift_right(x: np.ndarray) -> np.ndarray:
    """x_right = (x_d, x_1, …, x_{d−1}) along the last axis."""
    return np.roll(x, 1, axis=-1)


def mirror(x: np.ndarray) -> np.ndarray:
    """x ↦ (x_1, x_d, x_{d−1}, …, x_2): the reflection about the first entry (x is even iff mirror(x) = x)."""
    return np.roll(np.flip(x, axis=-1), 1, axis=-1)


def even_basis(d: int) -> np.ndarray:
    """d × (⌊d/2⌋ + 1) matrix whose 0/1 columns span the even vectors of R^d."""
    columns = []
    for k in range(d // 2 + 1):
        e = np.zeros(d)
        e[k] = e[(d - k) % d] = 1.0
        columns.append(e)
    return np.array(columns).T


# -- Assumption 1 ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Decomposition:
    """An orthogonal decomposition M(x) = Σ_j [Sx]_j U_1[:, j] ⊗ ⋯ ⊗ U_L[:, j] (S: m × d, U_l: k_l × m)."""

    S: np.ndarray
    U: tuple[np.ndarray, ...]

    @property
    def degree(self) -> int:
        return len(self.U)

    @property
    def m(self) -> int:
        return self.S.shape[0]

    def basis(self) -> np.ndarray:
        """[M(e_k)] for k = 1..d as a (d, k_1, …, k_L) array (complex in general)."""
        letters = "abcdefgh"[: self.degree]
        spec = "jk," + ",".join(f"{a}j" for a in letters) + "->k" + letters
        return np.einsum(spec, self.S, *self.U)

    def network(self, atol: float = 1e-12) -> LinearTensorNetwork:
        """The real linear tensor network with this data tensor (ValueError if M(x) is not real)."""
        basis = self.basis()
        if above(np.max(np.abs(basis.imag)), atol):  # d ≥ 1: never empty
            raise ValueError("the decomposition gives a complex data tensor")
        return LinearTensorNetwork(np.ascontiguousarray(basis.real))

    def transformed(self, parts: Sequence[np.ndarray]) -> list[np.ndarray]:
        """η_l = U_l^T v_l (plain transpose, as in the paper)."""
        return [U.T @ v for U, v in zip(self.U, parts)]

    def rho(self, parts: Sequence[np.ndarray]) -> np.ndarray:
        """ρ = η_1 ⊙ ⋯ ⊙ η_L, so that β = S^T ρ."""
        return np.prod(np.array(self.transformed(parts)), axis=0)


def diagonal_decomposition(d: int, depth: int) -> Decomposition:
    """Diagonal networks: S = U_l = I_d."""
    return Decomposition(np.eye(d), tuple(np.eye(d) for _ in range(depth)))


def convolution_decomposition(d: int, depth: int) -> Decomposition:
    """Full-length circular convolutions: S = d^{(L−1)/2} F and U_l = F^* (App. D.3)."""
    F = dft_matrix(d)
    return Decomposition(d ** ((depth - 1) / 2) * F, tuple(F.conj() for _ in range(depth)))
