"""Paper 002, Secs. 2–4 and App. A–B, D.3: multilinear multiplication, tensor encodings of networks, the
gradient-flow equation, tensor singular vectors, orthogonal decomposability (Assumption 1), even vectors.

Helpers first (evaluations of the paper's definitions, written from the definitions and not from the engines
that they check), then the claims.
"""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Callable, Sequence

import numpy as np
import sympy

from numerics import backend as B
from numerics.losses import Objective
from numerics.networks import Network, circular_convolutional, diagonal, fully_connected
from numerics.symbolic import is_identically_zero
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)
from theorems.tensor_networks.common import (
    OMEGA,
    Decomposition,
    convolution_decomposition,
    cyclotomic_conjugate,
    cyclotomic_is_zero,
    dft_matrix,
    diagonal_decomposition,
    even_basis,
    exact_dft_matrix,
    is_even,
    mirror,
)
from verify import Context, claim, plain

Activation = Callable[[np.ndarray], np.ndarray]


# -- multilinear multiplication (Sec. 2) ------------------------------------------------------------------------
def multilinear(A: np.ndarray, arguments: Sequence[np.ndarray]) -> np.ndarray:
    """A∘(N_1, …, N_L): mode l is multiplied by N_l (k_l × p_l, the paper's B_l^T) or contracted with a vector.

    [A∘(B_1^T, …, B_L^T)]_{p_1…p_L} = Σ_j A_{j_1…j_L} [B_1]_{p_1 j_1} ⋯ [B_L]_{p_L j_L}. Works on float and on
    object (sympy) arrays.
    """
    letters = iter(string.ascii_letters)
    modes = [next(letters) for _ in arguments]
    specs, out = [], []
    for mode, argument in zip(modes, arguments):
        if np.ndim(argument) == 1:
            specs.append(mode)
        else:
            free = next(letters)
            specs.append(mode + free)
            out.append(free)
    return B.einsum("".join(modes) + "," + ",".join(specs) + "->" + "".join(out), A, *arguments)


def contract_all_but(A: np.ndarray, vectors: Sequence[np.ndarray], free: int) -> np.ndarray:
    """A∘(u_1, …, u_{l−1}, I, u_{l+1}, …, u_L) with l = ``free`` (0-based)."""
    identity = np.eye(A.shape[free], dtype=np.asarray(A).dtype if np.asarray(A).dtype == object else float)
    if identity.dtype == object:
        identity = np.vectorize(sympy.Integer, otypes=[object])(np.eye(A.shape[free], dtype=int))
    return multilinear(A, [identity if ell == free else v for ell, v in enumerate(vectors)])


# -- the nonlinear tensor formulation (eq. 2) and the layered networks (eqs. 3–5) -------------------------------
def tensor_form(model: LinearTensorNetwork, theta: np.ndarray, x: np.ndarray, phi: Activation) -> object:
    """Eq. (2): H_1 = φ(M(x)∘(v_1, I, …, I)), H_l = φ(H_{l−1}∘(v_l, I, …)), f = H_{L−1}∘v_L."""
    parts = model.split(theta)
    H = model.data_tensor(x)
    for v in parts[:-1]:
        H = phi(np.tensordot(v, H, axes=(0, 0)))
    return np.dot(H, parts[-1])


def layered_form(network: Network, theta: np.ndarray, x: np.ndarray, phi: Activation) -> object:
    """Eqs. (3)–(5): h ↦ φ(W_l h) through the hidden layers, then the output row; same θ layout as the tensor."""
    matrices = network.matrices(theta)
    h = x
    for W in matrices[:-1]:
        h = phi(W.dot(h))
    return matrices[-1].dot(h)[0]


@functools.cache
def architectures(quick: bool = True) -> tuple[tuple[str, LinearTensorNetwork, Network], ...]:
    """(name, tensor encoding, layered network) for the three families; parameters share one layout."""
    shapes = [("diagonal, d = 3, L = 3", diagonal_tensor(3, 3), diagonal(3, 3, "linear")),
              ("convolution, d = 5, k = (3, 4, 5)", convolutional_tensor(5, [3, 4]),
               circular_convolutional(5, 3, [3, 4], "linear")),
              ("fully connected, widths (3, 4, 2)", fully_connected_tensor([3, 4, 2]),
               fully_connected([3, 4, 2, 1], "linear"))]
    if not quick:
        shapes += [("diagonal, d = 4, L = 4", diagonal_tensor(4, 4), diagonal(4, 4, "linear")),
                   ("convolution, d = 6, full length, L = 3", convolutional_tensor(6, [6, 6]),
                    circular_convolutional(6, 3, None, "linear")),
                   ("fully connected, widths (2, 3, 2, 3)", fully_connected_tensor([2, 3, 2, 3]),
                    fully_connected([2, 3, 2, 3, 1], "linear"))]
    return tuple(shapes)


def encoding_gap(model: LinearTensorNetwork, network: Network, phi: Activation, rng: np.random.Generator,
                 samples: int) -> float:
    """max |tensor form − layered form| over random parameters and inputs (float64)."""
    gaps = []
    for _ in range(samples):
        theta, x = rng.normal(size=model.n_params), rng.normal(size=model.d_in)
        gaps.append(abs(float(tensor_form(model, theta, x, phi)) - float(layered_form(network, theta, x, phi))))
    return max(gaps)


def symbolic_encoding_difference(model: LinearTensorNetwork, network: Network, phi_at_zero: object | None
                                 ) -> sympy.Expr:
    """tensor form − layered form with symbolic x, θ and an undefined activation φ.

    ``phi_at_zero``: a value substituted for φ(0) (0 for the corrected statement), or None to keep φ generic.
    """
    phi = sympy.Function("phi")
    apply = np.vectorize(lambda e: phi(e), otypes=[object])
    theta = np.array(sympy.symbols(f"t0:{model.n_params}", real=True), dtype=object)
    x = np.array(sympy.symbols(f"x0:{model.d_in}", real=True), dtype=object)
    difference = sympy.expand(tensor_form(model, theta, x, apply) - layered_form(network, theta, x, apply))
    return difference if phi_at_zero is None else sympy.expand(difference.subs(phi(0), phi_at_zero))


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


# -- gradient flow (eq. 7) --------------------------------------------------------------------------------------
def generic_tensor_network(sizes: Sequence[int], d: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """A data tensor with a free symbol per entry of M(e_k), and symbolic parameters v_1..v_L."""
    basis = np.array(sympy.symbols(f"m0:{d * int(np.prod(sizes))}", real=True), dtype=object).reshape(d, *sizes)
    parts = [np.array(sympy.symbols(f"v{ell}_0:{k}", real=True), dtype=object) for ell, k in enumerate(sizes)]
    return basis, parts


def flow_field_formula(basis: np.ndarray, parts: Sequence[np.ndarray], residual_vector: np.ndarray, layer: int,
                       sign: int = -1, shift: int = 0) -> np.ndarray:
    """Eq. (7): dv_l/dt = M(−Xᵀr)∘(v_1, …, I_{k_l}, …, v_L); ``sign``/``shift`` give perturbed readings."""
    M = np.tensordot(sign * residual_vector, basis, axes=(0, 0))  # M(∓Xᵀr)
    return contract_all_but(M, parts, (layer + shift) % len(parts))


# -- tensor singular tuples (eq. 8) -----------------------------------------------------------------------------
def singular_tuple_residual(A: np.ndarray, vectors: Sequence[np.ndarray]) -> tuple[float, float]:
    """(s, max_l ‖A∘(u_1..I..u_L) − s u_l‖ / |s|) with unit u_l and s = A∘(u_1, …, u_L) (float64)."""
    units = [v / np.linalg.norm(v) for v in vectors]
    s = float(multilinear(A, units))
    residual = max(float(np.linalg.norm(contract_all_but(A, units, ell) - s * u)) for ell, u in enumerate(units))
    return s, residual / abs(s)


def exact_singular_tuple_defect(A: np.ndarray, vectors: Sequence[np.ndarray], s: sympy.Expr) -> list[sympy.Expr]:
    """Entries of A∘(u_1..I..u_L) − s u_l over all l, exactly (sympy)."""
    return [sympy.nsimplify(e) - s * u for ell, v in enumerate(vectors)
            for e, u in zip(contract_all_but(A, vectors, ell), v)]


def rational_orthogonal(k: int, rng: np.random.Generator) -> sympy.Matrix:
    """A rational orthogonal matrix: the Cayley transform (I − K)(I + K)^{-1} of a rational skew K."""
    K = sympy.zeros(k, k)
    for i, j in itertools.combinations(range(k), 2):
        K[i, j] = sympy.Rational(int(rng.integers(-4, 5)), int(rng.integers(1, 5)))
        K[j, i] = -K[i, j]
    return (sympy.eye(k) - K) * (sympy.eye(k) + K).inv()


# -- Assumption 1 -------------------------------------------------------------------------------------------------
def decomposition_defect(model: LinearTensorNetwork, decomposition: Decomposition) -> dict[str, float]:
    """How far (S, U_1..U_L) is from an orthogonal decomposition of M (Assumption 1), in float64."""
    sizes, (m, d) = model.sizes, decomposition.S.shape
    return {
        "tensor": float(np.max(np.abs(decomposition.basis() - model.basis))),
        "orthonormal": max(float(np.max(np.abs(U.conj().T @ U - np.eye(m)))) for U in decomposition.U),
        "rank_deficit": float(d - np.linalg.matrix_rank(decomposition.S)),
        "size_violation": float(max(0, d - m) + max(0, m - min(sizes))),
    }


def unfolding_commutator(model: LinearTensorNetwork) -> float:
    """max over modes l and basis inputs of ‖[P_ab, P_ce]‖ with P_ab = M_(l)(e_a) M_(l)(e_b)^T.

    A necessary condition for Assumption 1: every mode-l unfolding is U_l diag(Sx) K_l^T with K_l having
    orthonormal columns, so all the P_ab = U_l diag(Sx_a ⊙ conj(Sx_b)) U_l^H are diagonal in one basis and commute.
    Exact for integer data tensors.
    """
    worst = 0.0
    d = model.d_in
    for mode in range(model.degree):
        unfolded = [np.moveaxis(model.basis[k], mode, 0).reshape(model.sizes[mode], -1) for k in range(d)]
        products = [unfolded[a] @ unfolded[b].T for a in range(d) for b in range(d)]
        for P, R in itertools.combinations(products, 2):
            worst = max(worst, float(np.max(np.abs(P @ R - R @ P))))
    return worst


def exact_convolution_decomposition_defects(d: int, depth: int, exponent_shift: sympy.Expr = sympy.S.Zero,
                                            conjugate: bool = True) -> int:
    """Entries of Σ_j [d^{(L−1)/2 + shift} F e_k]_j (U[:, j])^{⊗L} − M_conv(e_k), over all k, that are not 0 in Q(ψ).

    U = F^* (``conjugate``, the paper's choice) or F. By linearity in x, 0 proves App. D.3's identity for (d, L).
    """
    F, U = exact_dft_matrix(d), exact_dft_matrix(d, conjugate=conjugate)
    S = (sympy.sqrt(d) ** (depth - 1 + 2 * exponent_shift)) * F
    conv = convolutional_tensor(d, [d] * (depth - 1)).basis
    defects = 0
    for k in range(d):
        for index in itertools.product(range(d), repeat=depth):
            entry = sum(S[j, k] * sympy.Mul(*(U[i, j] for i in index)) for j in range(d))
            defects += not cyclotomic_is_zero(entry - int(conv[k][index]), d)
    return defects


# -- even vectors (App. A.4, F.4) ------------------------------------------------------------------------------
def exact_dft_of(x: Sequence[sympy.Expr], d: int) -> list[sympy.Expr]:
    """√d · F x in Q(ψ)[x] (the 1/√d factor dropped: it changes neither realness nor evenness)."""
    return [sum(OMEGA ** ((j * k) % d) * x[k] for k in range(d)) for j in range(d)]


def dft_real_and_even(x: Sequence[sympy.Expr], d: int) -> tuple[bool, bool]:
    """(F x is real, F x is even) for symbolic x, decided exactly in Q(ψ)."""
    y = exact_dft_of(x, d)
    real = all(cyclotomic_is_zero(v - cyclotomic_conjugate(v, d), d) for v in y)
    even = all(cyclotomic_is_zero(y[j] - y[(d - j) % d], d) for j in range(d))
    return real, even


def symbolic_even_vector(d: int) -> list[sympy.Symbol]:
    """The generic even vector: x_k = a_{min(k, d−k)}."""
    a = sympy.symbols(f"a0:{d // 2 + 1}", real=True)
    return [a[min(k, d - k)] for k in range(d)]


# =====================================================================================================================
# Claims
# =====================================================================================================================
def _symbols(name: str, *shape: int) -> np.ndarray:
    return np.array(sympy.symbols(f"{name}0:{int(np.prod(shape))}", real=True), dtype=object).reshape(shape)


def _as_matrix(array: np.ndarray) -> sympy.Matrix:
    return sympy.Matrix(np.atleast_2d(array).tolist())


def _defining_sum(A: np.ndarray, maps: Sequence[np.ndarray]) -> np.ndarray:
    """The paper's definition, literally: Σ_j A_j (B_1 e_{j_1} ⊗ ⋯ ⊗ B_L e_{j_L}) for maps B_l (p_l × k_l)."""
    total = np.zeros(tuple(Bl.shape[0] for Bl in maps), dtype=object)
    total[...] = sympy.S.Zero
    for index in itertools.product(*(range(k) for k in A.shape)):
        product = maps[0][:, index[0]]
        for Bl, j in zip(maps[1:], index[1:]):
            product = np.multiply.outer(product, Bl[:, j])
        total = total + A[index] * product
    return total


def _integers(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """An exact integer instance (object array of Python ints) for refuting an identity cheaply."""
    return rng.integers(-5, 6, size=shape).astype(object)


def _multilinear_identities(A2: np.ndarray, B1: np.ndarray, B2: np.ndarray, v1: np.ndarray, v2: np.ndarray,
                            A3: np.ndarray, maps: Sequence[np.ndarray], outer: Sequence[np.ndarray],
                            perturbed: bool = False) -> dict[str, np.ndarray]:
    """Left minus right side of each identity of the definition (all should vanish); ``perturbed`` gives the
    transposed reading (B_1ᵀ A B_2ᵀ), a sum without B_1, and the reversed composition A∘((B_l C_l)ᵀ)."""
    first = B1.T if perturbed else B1
    composed = [(Bl.dot(Cl) if perturbed else Cl.dot(Bl)).T for Bl, Cl in zip(maps, outer)]
    defining = _defining_sum(A3, [np.eye(2, dtype=int).astype(object)] + list(maps[1:]) if perturbed else maps)
    return {
        "L = 2 gives B_1 A B_2^T": multilinear(A2, [B1.T, B2.T]) - first.dot(A2).dot(B2.T),
        "agrees with the defining sum of tensor products (L = 3)":
            multilinear(A3, [Bl.T for Bl in maps]) - defining,
        "composition rule (L = 3)": multilinear(multilinear(A3, [Bl.T for Bl in maps]), [Cl.T for Cl in outer])
        - multilinear(A3, composed),
        "vector arguments contract: A∘(v_1, v_2) = v_1ᵀ A v_2": np.atleast_1d(multilinear(A2, [v1, v2])
                                                                             - v1.dot(A2).dot(v2)),
    }


@claim(
    id="tensor.def.multilinear",
    ref="Sec. 2 (notation)",
    kind="definition",
    title="Multilinear multiplication of a tensor by linear maps",
    statement=("For $A in RR^(k_1 times dots.c times k_L)$ and $B_l in RR^(p_l times k_l)$, "
               "$A circle.small (B_1^T, dots, B_L^T) = sum_(j_1, dots, j_L) A_(j_1 dots j_L) "
               "B_1 e_(j_1) times.o dots.c times.o B_L e_(j_L)$. For $L = 2$ this is $B_1 A B_2^T$; a "
               "vector argument contracts its mode ($A circle.small (v_1, v_2) = v_1^T A v_2$); and products "
               "compose: $(A circle.small (B_l^T)_l) circle.small (C_l^T)_l = A circle.small ((C_l B_l)^T)_l$."),
    hypotheses=plain("real tensors and matrices of compatible sizes"),
    expected="certified",
    profiles={"quick": "sympy identities on explicit symbolic entries (L = 2: 2×3 tensor, maps 2×2 and 4×3; "
                       "L = 3: 2×2×2 tensor, 2×2 maps); controls on exact integer instances",
              "full": "as quick", "paper": "as quick"},
)
def check_multilinear(ctx: Context) -> None:
    symbolic = _multilinear_identities(_symbols("a", 2, 3), _symbols("b", 2, 2), _symbols("c", 4, 3),
                                       _symbols("u", 2), _symbols("w", 3), _symbols("t", 2, 2, 2),
                                       [_symbols(name, 2, 2) for name in "def"],
                                       [_symbols(name, 2, 2) for name in "ghk"])
    for name, difference in symbolic.items():
        test = is_identically_zero(sympy.Matrix(difference.reshape(difference.shape[0], -1).tolist()))
        ctx.prove(name, "symbolic", test.proved, test.description)
    rng = ctx.rng("integer instance")
    instance = (_integers(rng, 2, 3), _integers(rng, 2, 2), _integers(rng, 4, 3), _integers(rng, 2),
                _integers(rng, 3), _integers(rng, 2, 2, 2), [_integers(rng, 2, 2) for _ in range(3)],
                [_integers(rng, 2, 2) for _ in range(3)])
    exact = _multilinear_identities(*instance)
    wrong = _multilinear_identities(*instance, perturbed=True)
    holds = all(not np.any(difference) for difference in exact.values())
    rejected = [name for name, difference in wrong.items() if np.any(difference)]
    ctx.control("transposed map, missing map, reversed composition", holds and len(rejected) == 3,
                f"on one exact integer instance every identity holds and the perturbed readings fail: {rejected}",
                {"perturbed_readings_rejected": len(rejected)})


ENCODING_TOLERANCE = 1e-12  # float64 agreement of two evaluations of one function (values are O(1))


def _activations() -> dict[str, tuple[Activation, bool]]:
    """name → (φ, φ(0) = 0)."""
    return {"linear": (lambda z: z, True), "ReLU": (lambda z: np.maximum(z, 0.0), True),
            "tanh": (np.tanh, True), "sigmoid": (sigmoid, False)}


def _symbolic_shapes() -> tuple[tuple[str, LinearTensorNetwork, Network], ...]:
    """Small shapes for the generic-φ proofs: every family, depth 3 (where padding zeros first appear)."""
    return (("diagonal, d = 2, L = 3", diagonal_tensor(2, 3), diagonal(2, 3, "linear")),
            ("convolution, d = 3, k = (2, 3, 3)", convolutional_tensor(3, [2, 3]),
             circular_convolutional(3, 3, [2, 3], "linear")),
            ("fully connected, widths (2, 2, 2)", fully_connected_tensor([2, 2, 2]),
             fully_connected([2, 2, 2, 1], "linear")))


def _misencodings() -> tuple[tuple[str, LinearTensorNetwork, Network], ...]:
    """Plausible wrong encodings: row-major vec(W_1) for the FC network, true (flipped) convolution."""
    fc = fully_connected_tensor([3, 4, 2])
    row_major = [a * 4 + b for b in range(4) for a in range(3)]  # column-major index → the row-major one
    fc_wrong = LinearTensorNetwork(fc.basis[:, row_major])
    d, lengths = 5, [3, 4, 5]
    flipped = np.zeros((d, *lengths))
    for js in itertools.product(*(range(k) for k in lengths)):
        flipped[((sum(js[1:]) - js[0]) % d, *js)] = 1.0
    return (("row-major vec(W_1)", fc_wrong, fully_connected([3, 4, 2, 1], "linear")),
            ("flipped convolution", LinearTensorNetwork(flipped), circular_convolutional(5, 3, [3, 4], "linear")))


def _encoding_gaps(ctx: Context, stream: str, shapes: Sequence[tuple[str, LinearTensorNetwork, Network]],
                   activations: Sequence[str]) -> dict[tuple[str, str], float]:
    rng = ctx.rng(stream)
    table = _activations()
    return {(name, act): encoding_gap(model, network, table[act][0], rng, ctx.pick(3, 10))
            for name, model, network in shapes for act in activations}


@claim(
    id="tensor.def.networks",
    ref="Sec. 3, eqs. (2)–(6); App. A eqs. (10)–(12); App. B",
    kind="definition",
    title="Tensor encodings of diagonal, convolutional and fully-connected networks, as printed",
    statement=("As printed: with $M_\"diag\"$, $M_\"conv\"$ ($[M(x)]_(j_1 dots j_L) = x_((sum_l j_l - L + 1) "
               "mod d)$) and $M_\"fc\"$ (block-diagonal recursion, $v_l = \"vec\"(W_l)$), the tensor "
               "formulation (2) $H_l = phi(H_(l-1) circle.small (v_l, I, dots, I))$ computes the diagonal (3), "
               "circular-convolutional (4) and fully-connected (5) networks for an entrywise activation $phi$; "
               "for $phi(t) = t$ the linear networks (10)–(12) equal $M(x) circle.small (v_1, dots, v_L)$."),
    hypotheses=plain("any entrywise activation φ (the text puts no condition on φ)",
                "vec stacks columns; the convolution is the paper's correlation-style ⋆"),
    expected="refuted",
    corrected_by="tensor.def.networks.corrected",
    profiles={"quick": "φ ∈ {linear, ReLU, tanh, sigmoid} on diag (d 3, L 3), conv (d 5, k (3, 4)), FC (3, 4, 2), "
                       "3 random instances each; the sigmoid discrepancy is the counterexample",
              "full": "also diag L 4, full-length conv d 6, FC (2, 3, 2, 3); 10 instances",
              "paper": "as full"},
    notes=plain(("Sec. 3 states the equivalence of (2) with (3) and (5) for a general activation; it needs φ(0) = 0 "
            "because the structural zeros of M_diag and M_fc go through φ (spec §4 E15). The conv encoding has no "
            "structural zeros and holds for every φ. None of the paper's results (all for linear φ) is affected.")),
)
def check_networks(ctx: Context) -> None:
    shapes = architectures(ctx.profile.value == "quick")
    gaps = _encoding_gaps(ctx, "instances", shapes, list(_activations()))
    sigmoid_gaps = {name: gap for (name, act), gap in gaps.items() if act == "sigmoid"}
    padded = [name for name, gap in sigmoid_gaps.items() if gap > 1e6 * ENCODING_TOLERANCE]
    ctx.counterexample("sigmoid (φ(0) = 1/2): tensor form ≠ network", "numeric",
                       len(padded) >= 2 and not any(name.startswith("conv") for name in padded),
                       f"diagonal and fully-connected encodings differ from the networks by O(1) with the sigmoid "
                       f"(the convolution does not): {padded}",
                       {f"gap[{name}]": gap for name, gap in sigmoid_gaps.items()})
    zero_at_zero = max(gap for (name, act), gap in gaps.items() if act != "sigmoid")
    ctx.support("linear, ReLU, tanh: encodings agree", "numeric", zero_at_zero <= ENCODING_TOLERANCE,
                f"max |tensor form − network| ≤ {ENCODING_TOLERANCE:g} over {len(shapes)} shapes",
                {"max_gap": zero_at_zero, "tolerance": ENCODING_TOLERANCE})
    wrong = _encoding_gaps(ctx, "misencodings", _misencodings(), ["linear"])
    ctx.control("misencodings are detected", min(wrong.values()) > 1e6 * ENCODING_TOLERANCE,
                "row-major vec(W_1) and a flipped convolution give O(1) gaps already for linear φ",
                {f"gap[{name}]": gap for (name, _), gap in wrong.items()})


@claim(
    id="tensor.def.networks.corrected",
    ref="Sec. 3, eqs. (2)–(6); App. A–B, corrected",
    kind="definition",
    title="Tensor encodings hold for activations with φ(0) = 0 (any φ for convolutions)",
    statement=("With $M_\"diag\"$, $M_\"conv\"$ and $M_\"fc\"$ as in Sec. 3 and App. B, the tensor formulation (2) "
               "computes the networks (3)–(5) for every entrywise activation with $phi(0) = 0$ (linear, ReLU, "
               "tanh), and the convolutional network (4) for every $phi$; for $phi(t) = t$, "
               "$f(x; Theta) = M(x) circle.small (v_1, dots, v_L)$ is the linear network (10)–(12)."),
    hypotheses=plain("φ(0) = 0 for the diagonal and fully-connected encodings",
                "vec stacks columns; the convolution is the paper's correlation-style ⋆"),
    expected="certified",
    corrects="tensor.def.networks",
    profiles={"quick": "generic φ (sympy undefined function) on depth-3 diag (d 2), conv (d 3, k (2, 3)) and FC "
                       "(2, 2, 2); float checks with linear/ReLU/tanh on the quick shapes of tensor.def.networks",
              "full": "float checks on the larger shapes too, 10 instances", "paper": "as full"},
    notes=plain(("The symbolic proofs cover the listed shapes (every entry symbolic, φ an undefined function); larger "
            "shapes are float64 evidence.")),
)
def check_networks_corrected(ctx: Context) -> None:
    refuted_without = []
    for name, model, network in _symbolic_shapes():
        convolution = name.startswith("conv")
        test = is_identically_zero(symbolic_encoding_difference(model, network, None if convolution else 0))
        ctx.prove(f"generic φ{'' if convolution else ' with φ(0) = 0'}: {name}", "symbolic", test.proved,
                  test.description)
        if not convolution:
            generic = is_identically_zero(symbolic_encoding_difference(model, network, None))
            if generic.refuted:
                refuted_without.append(name)
    shapes = architectures(ctx.profile.value == "quick")
    gaps = _encoding_gaps(ctx, "instances", shapes, ["linear", "ReLU", "tanh"])
    worst = max(gaps.values())
    ctx.support("linear, ReLU, tanh on larger shapes", "numeric", worst <= ENCODING_TOLERANCE,
                f"max |tensor form − network| ≤ {ENCODING_TOLERANCE:g} over {len(shapes)} shapes",
                {"max_gap": worst, "tolerance": ENCODING_TOLERANCE})
    sigmoid_gaps = _encoding_gaps(ctx, "sigmoid", shapes, ["sigmoid"])
    dropped = [name for (name, _), gap in sigmoid_gaps.items() if gap > 1e6 * ENCODING_TOLERANCE]
    ctx.control("dropping φ(0) = 0 is rejected", len(refuted_without) == 2 and len(dropped) >= 2,
                f"without φ(0) = 0 the symbolic identity is refuted for {refuted_without} and the sigmoid fails the "
                f"float check for {dropped}", {"symbolic_refutations": len(refuted_without)})


def _flow_formula_gaps(basis: np.ndarray, parts: Sequence[np.ndarray], X: np.ndarray, r: np.ndarray,
                       sign: int = -1, shift: int = 0) -> list[np.ndarray]:
    """Per layer: −Σ_i r_i ∂f(x_i)/∂v_l (chain rule, by differentiation) minus the formula of eq. (7).

    ``r`` holds the residuals ℓ'(f(x_i), y_i) as free symbols or numbers; the identity is then a polynomial one.
    """
    theta = [s for v in parts for s in v]
    beta = np.array([multilinear(basis[k], parts) for k in range(basis.shape[0])], dtype=object)
    pairing = -sum(r[i] * X[i].dot(beta) for i in range(len(r)))  # −Σ_i r_i f(x_i) with r held fixed
    gaps, offset = [], 0
    for layer, v in enumerate(parts):
        gradient = np.array([sympy.diff(pairing, s) for s in theta[offset:offset + len(v)]], dtype=object)
        gaps.append(gradient - flow_field_formula(basis, parts, X.T.dot(r), layer, sign, shift))
        offset += len(v)
    return gaps


@claim(
    id="tensor.def.gf",
    ref="Sec. 3, eq. (7)",
    kind="equation",
    title="Gradient flow of a linear tensor network",
    statement=("For $f(x; Theta) = M(x) circle.small (v_1, dots, v_L)$ and $cal(L) = sum_i ell(f(x_i), y_i)$, "
               "$-nabla_(v_l) cal(L) = M(-X^T r) circle.small (v_1, dots, v_(l-1), I_(k_l), v_(l+1), dots, v_L)$ "
               "with $r_i = ell'(f(x_i), y_i)$: $r_i = -y_i e^(-y_i f(x_i))$ (exponential loss) or "
               "$f(x_i) - y_i$ (square loss)."),
    hypotheses=plain("any linear tensor network", "exponential or square loss, summed over samples"),
    expected="certified",
    profiles={"quick": "sympy: a data tensor with a free symbol in every entry (d 2, k (2, 2, 2)), symbolic data "
                       "and residuals (n 2); the two residual formulas; float: the engine's descent direction on "
                       "conv/FC networks", "full": "as quick", "paper": "as quick"},
    notes=plain(("By the chain rule ∇_θ L = Σ_i ℓ'(f_i, y_i) ∇_θ f(x_i), so the identity is proved with the residuals "
            "as free symbols (any differentiable loss), and the two residual formulas separately.")),
)
def check_gf(ctx: Context) -> None:
    basis, parts = generic_tensor_network((2, 2, 2), 2)
    X, r = _symbols("x", 2, 2), _symbols("r", 2)
    for layer, gap in enumerate(_flow_formula_gaps(basis, parts, X, r)):
        test = is_identically_zero(sympy.Matrix(list(gap)))
        ctx.prove(f"layer {layer + 1}: chain rule gives eq. (7)", "symbolic", test.proved, test.description)
    f, y = sympy.symbols("f y", real=True)
    exponential = is_identically_zero(sympy.diff(sympy.exp(-f * y), f) - (-y * sympy.exp(-y * f)))
    square = is_identically_zero(sympy.diff((f - y) ** 2 / 2, f) - (f - y))
    ctx.prove("residuals ℓ'(f, y)", "symbolic", exponential.proved and square.proved,
              f"exponential: {exponential.description}; square: {square.description}")
    rng = ctx.rng("engine")
    worst = 0.0
    for model in (convolutional_tensor(4, [2, 4]), fully_connected_tensor([3, 2, 2])):
        theta0, Xf = rng.normal(size=model.n_params), rng.normal(size=(3, model.d_in))
        yf = np.sign(rng.normal(size=3))
        residual = -yf * np.exp(-yf * (Xf @ model.beta(theta0)))
        formula = np.concatenate([flow_field_formula(model.basis, model.split(theta0), Xf.T @ residual, layer)
                                  for layer in range(model.degree)])
        engine = Objective(model, Xf, yf, "exponential").descent(theta0)
        worst = max(worst, float(np.max(np.abs(engine - formula)) / np.max(np.abs(formula))))
    ctx.support("the flow engine integrates eq. (7)", "numeric", worst <= 1e-13,
                "Objective.descent on conv (d 4, k (2, 4)) and FC (3, 2, 2) against the formula: relative ≤ 1e-13",
                {"max_relative_gap": worst})
    integer = ctx.rng("integer instance")
    instance = (_integers(integer, 2, 2, 2, 2), parts, _integers(integer, 2, 2), _integers(integer, 2))
    point = {s: int(integer.integers(-5, 6)) for v in parts for s in v}

    def vanishes(gap: np.ndarray) -> bool:
        return all(sympy.sympify(entry).subs(point) == 0 for entry in gap)

    exact = all(vanishes(gap) for gap in _flow_formula_gaps(*instance))
    flipped = not any(vanishes(gap) for gap in _flow_formula_gaps(*instance, sign=1))
    shifted = not any(vanishes(gap) for gap in _flow_formula_gaps(*instance, shift=1))
    ctx.control("sign flip M(+Xᵀr) and the wrong free mode", exact and flipped and shifted,
                "at one exact integer point eq. (7) holds, and M(+Xᵀr) or leaving mode l+1 free fails in every layer")


def _orthogonally_decomposable(rng: np.random.Generator, sizes: Sequence[int], values: Sequence[sympy.Expr]
                               ) -> tuple[np.ndarray, list[sympy.Matrix]]:
    """A = Σ_j σ_j U_1[:, j] ⊗ ⋯ ⊗ U_L[:, j] with rational orthogonal U_l (exact object array)."""
    factors = [rational_orthogonal(k, rng) for k in sizes]
    A = np.zeros(tuple(sizes), dtype=object)
    A[...] = sympy.S.Zero
    for j, sigma in enumerate(values):
        product = np.array(list(factors[0][:, j]), dtype=object)
        for U in factors[1:]:
            product = np.multiply.outer(product, np.array(list(U[:, j]), dtype=object))
        A = A + sigma * product
    return A, factors


@claim(
    id="tensor.def.tsv",
    ref="Sec. 4.1, eq. (8) (Lim 2005)",
    kind="definition",
    title="Singular vectors and values of a tensor",
    statement=("Unit vectors $u_1, dots, u_L$ and a scalar $s$ form a singular tuple of "
               "$A in RR^(k_1 times dots.c times k_L)$ when $s u_l = A circle.small (u_1, dots, u_(l-1), "
               "I_(k_l), u_(l+1), dots, u_L)$ for every $l$. For $L = 2$ these are the singular triples of a "
               "matrix ($s u = A v$, $s v = A^T u$), and each term $(U_1[:, j], dots, U_L[:, j], sigma_j)$ of an "
               "orthogonal decomposition $A = sum_j sigma_j U_1[:, j] times.o dots.c times.o "
               "U_L[:, j]$ is a singular tuple."),
    hypotheses=plain("real tensors; orthonormal columns U_l[:, j]"),
    expected="certified",
    profiles={"quick": "sympy (L = 2, symbolic A, u, v); exact rational orthogonal decompositions (L = 2, 3; 3×3(×3)); "
                       "float SVD triples of a random 4×5 matrix",
              "full": "as quick plus a 4×4×4 exact instance", "paper": "as full"},
)
def check_tsv(ctx: Context) -> None:
    A, u, v = _symbols("a", 2, 3), _symbols("u", 2), _symbols("w", 3)
    matrix = is_identically_zero(sympy.Matrix(list(contract_all_but(A, [u, v], 0) - A.dot(v))
                                              + list(contract_all_but(A, [u, v], 1) - A.T.dot(u))))
    ctx.prove("L = 2: (8) is s u = A v, s v = Aᵀu", "symbolic", matrix.proved, matrix.description)
    rng = ctx.rng("decompositions")
    controls = []
    shapes = [(3, 3), (3, 3, 3)] + ([(4, 4, 4)] if ctx.profile.value != "quick" else [])
    for sizes in shapes:
        values = [sympy.Rational(3), sympy.Rational(2), sympy.Rational(1, 2), sympy.Rational(1, 3)][: min(sizes)]
        A_exact, factors = _orthogonally_decomposable(rng, sizes, values)
        defects = sum(1 for j, sigma in enumerate(values)
                      for e in exact_singular_tuple_defect(A_exact, [np.array(list(U[:, j]), dtype=object)
                                                                     for U in factors], sigma) if e != 0)
        ctx.prove(f"decomposition terms are singular tuples, shape {sizes}", "exact", defects == 0,
                  f"A∘(u_1..I..u_L) = σ_j u_l exactly for all {len(values)} terms and all modes (rational "
                  f"orthogonal factors from Cayley transforms)", {"nonzero_defects": defects})
        mixed = [np.array(list(U[:, ell % 2]), dtype=object) for ell, U in enumerate(factors)]
        mixed_defects = sum(1 for e in exact_singular_tuple_defect(A_exact, mixed, values[0]) if e != 0)
        _, residual_mixed = singular_tuple_residual(
            np.vectorize(float)(A_exact), [np.vectorize(float)(x) for x in mixed])
        controls.append(mixed_defects > 0 and residual_mixed > 1e-3)
    M = rng.normal(size=(4, 5))
    U_svd, sigma, Vt = np.linalg.svd(M, full_matrices=False)
    worst = max(singular_tuple_residual(M, [U_svd[:, j], Vt[j]])[1] for j in range(4))
    values_match = all(abs(singular_tuple_residual(M, [U_svd[:, j], Vt[j]])[0] - sigma[j]) <= 1e-13 * sigma[0]
                       for j in range(4))
    ctx.support("float SVD triples satisfy (8)", "numeric", worst <= 1e-13 and values_match,
                "random 4×5 matrix: relative residual of (8) ≤ 1e-13 and s equals the singular value",
                {"max_relative_residual": worst})
    ctx.control("mixed tuples are rejected", all(controls),
                "(U_1[:, 1], U_2[:, 2], U_3[:, 1], …) from different terms fails (8), exactly and in float")


def _exact_identity_check(model: LinearTensorNetwork, decomposition: Decomposition) -> bool:
    """Assumption 1 for a real integer decomposition, in exact integer arithmetic."""
    S, U = decomposition.S.astype(int), [u.astype(int) for u in decomposition.U]
    basis = np.einsum("jk," + ",".join(f"{a}j" for a in "abcdefgh"[: len(U)]) + "->k" + "abcdefgh"[: len(U)],
                      S, *U)
    orthonormal = all(np.array_equal(u.T @ u, np.eye(S.shape[0], dtype=int)) for u in U)
    return bool(np.array_equal(basis, model.basis.astype(int)) and orthonormal
                and sympy.Matrix(S.tolist()).rank() == S.shape[1] and S.shape[1] <= S.shape[0] <= min(model.sizes))


def _exact_dft_is_unitary(d: int) -> bool:
    """F F^* = I in Q(ψ): U_l = F^* has orthonormal columns and S = d^{(L−1)/2} F is invertible."""
    product = exact_dft_matrix(d) * exact_dft_matrix(d, conjugate=True) - sympy.eye(d)
    return all(cyclotomic_is_zero(entry, d) for entry in product)


@claim(
    id="tensor.asm1",
    ref="Assumption 1, Sec. 4.2; App. D.2–D.3",
    kind="assumption",
    title="Orthogonally decomposable data tensors",
    statement=("There are $S in CC^(m times d)$ of full column rank ($d <= m <= min_l k_l$) and "
               "$U_l in CC^(k_l times m)$ with $U_l^H U_l = I_m$ such that $M(x) = sum_(j=1)^m [S x]_j "
               "U_1[:, j] times.o dots.c times.o U_L[:, j]$ for all $x$. Diagonal networks satisfy it "
               "with $S = U_l = I_d$, full-length convolutional networks with $S = d^((L-1)/2) F$, $U_l = F^*$; "
               "fully-connected networks do not in general."),
    hypotheses=plain("linear tensor network; F is the unitary DFT matrix"),
    expected="certified",
    profiles={"quick": "exact: diag (d 3, L 2, 3) in integers, full conv (d 3, 4; L 2, 3) in Q(ψ); float: conv "
                       "d ≤ 8, L ≤ 4; exact necessary condition (commuting unfolding products) on diag, conv, FC",
              "full": "exact conv for d ≤ 6", "paper": "as full"},
    notes=plain(("The violating instance uses a necessary condition: every mode-l unfolding is U_l diag(Sx) K_lᵀ with "
            "K_l of orthonormal columns, so the products M_(l)(e_a) M_(l)(e_b)ᵀ all commute.")),
)
def check_asm1(ctx: Context) -> None:
    for depth in (2, 3):
        ok = _exact_identity_check(diagonal_tensor(3, depth), diagonal_decomposition(3, depth))
        ctx.prove(f"diagonal, d = 3, L = {depth}: S = U_l = I", "exact", ok,
                  "integer arithmetic: the decomposition reproduces M_diag, U_lᵀU_l = I, rank S = d = m")
    sizes = ctx.pick((3, 4), (3, 4, 5, 6))
    for d in sizes:
        unitary = _exact_dft_is_unitary(d)
        defects = {depth: exact_convolution_decomposition_defects(d, depth) for depth in (2, 3)}
        ctx.prove(f"full-length convolution, d = {d}: S = d^((L−1)/2) F, U_l = F^*", "exact",
                  unitary and not any(defects.values()),
                  "exact in the cyclotomic field Q(ψ): F F^* = I and the decomposition reproduces M_conv for L = 2, 3",
                  {f"defects_L{depth}": n for depth, n in defects.items()})
    worst = max(decomposition_defect(convolutional_tensor(d, [d] * (depth - 1)),
                                     convolution_decomposition(d, depth))["tensor"]
                for d in range(2, 9) for depth in (2, 3, 4))
    ctx.support("full-length convolution in float64, d ≤ 8, L ≤ 4", "numeric", worst <= 1e-13,
                "max entry error of the reconstructed data tensor ≤ 1e-13", {"max_error": worst})
    commutators = {name: unfolding_commutator(model) for name, model in (
        ("diagonal", diagonal_tensor(3, 3)), ("full convolution", convolutional_tensor(4, [4, 4])),
        ("fully connected (2, 2)", fully_connected_tensor([2, 2])))}
    ctx.prove("necessary condition holds for diag and full conv", "exact",
              commutators["diagonal"] == 0 and commutators["full convolution"] == 0,
              "integer data tensors: all unfolding products commute", {f"commutator[{k}]": v
                                                                      for k, v in commutators.items()})
    wrong_u = exact_convolution_decomposition_defects(3, 2, conjugate=False)
    wrong_s = exact_convolution_decomposition_defects(3, 2, exponent_shift=sympy.Rational(1, 2))
    ctx.control("violating instances are rejected", commutators["fully connected (2, 2)"] > 0 and wrong_u > 0
                and wrong_s > 0,
                "FC with L = 2 (M(x) = I ⊗ x) fails the necessary condition; U_l = F instead of F^*, or S = d^(L/2) F, "
                "fail the exact identity (d = 3, L = 2)", {"defects_U_F": wrong_u, "defects_S_scale": wrong_s})


@claim(
    id="tensor.def.even",
    ref="App. A.4 (definition of even vectors); App. F.4",
    kind="definition",
    title="Even vectors and their DFT",
    statement=("$x in RR^d$ is even when $x_(j+2) = x_(d-j)$ for $j = 0, dots, floor((d-3)/2)$ (symmetric about "
               "$x_1$). If $x$ is real and even, then $F x$ is real and even."),
    hypotheses=plain("F the unitary DFT matrix"),
    expected="certified",
    profiles={"quick": "exact in Q(ψ) for the generic even vector, d = 2..6; float d ≤ 16",
              "full": "exact for d = 2..8", "paper": "as full"},
)
def check_even(ctx: Context) -> None:
    for d in range(2, ctx.pick(7, 9)):
        real, even = dft_real_and_even(symbolic_even_vector(d), d)
        ctx.prove(f"d = {d}", "exact", real and even,
                  "generic even vector (free symbols): F x − conj(F x) and F x − mirror(F x) vanish in Q(ψ)[x]")
    rng = ctx.rng("float")
    worst = 0.0
    for d in range(2, 17):
        x = even_basis(d) @ rng.normal(size=d // 2 + 1)
        y = dft_matrix(d) @ x
        worst = max(worst, float(np.max(np.abs(y.imag))), float(np.max(np.abs(y - mirror(y)))))
        assert is_even(x, 1e-15)
    ctx.support("float64, d = 2..16", "numeric", worst <= 1e-13,
                "random even vectors: max |Im F x| and max |F x − mirror(F x)| ≤ 1e-13", {"max_error": worst})
    generic = [not any(dft_real_and_even(sympy.symbols(f"y0:{d}", real=True), d)) for d in (3, 4, 5)]
    half_sample = [not any(dft_real_and_even([sympy.Symbol(f"b{min(k, d - 1 - k)}") for k in range(d)], d))
                   for d in (3, 4, 5)]
    detects = not is_even(np.arange(1.0, 5.0)) and is_even(np.array([1.0, 2.0, 3.0, 2.0]))
    ctx.control("non-even vectors are rejected", all(generic) and all(half_sample) and detects,
                "a generic vector, and one symmetric about the half-sample point (x_(j+1) = x_(d−j)), give a "
                "non-real, non-even F x for d = 3, 4, 5; is_even tells (1,2,3,4) from (1,2,3,2)")


@claim(
    id="tensor.aux.D3",
    ref="App. D.3 (proof of Corollary 3)",
    kind="lemma",
    title="The DFT diagonalizes full-length circular convolutions",
    statement=("For full-length filters ($k_l = d$), $M_\"conv\"(x) = sum_(j=1)^d [d^((L-1)/2) F x]_j "
               "(F^*[:, j])^(times.o L)$, using $sum_(l=1)^d psi^((l-1) a) = d [d | a]$ with "
               "$psi = e^(-2 pi i \\/ d)$."),
    hypotheses=plain("d ≥ 2, L ≥ 2"),
    expected="certified",
    profiles={"quick": "exact in Q(ψ): the root-of-unity sums and the identity for d = 2..5, L = 2, 3; float "
                       "d ≤ 12, L ≤ 4",
              "full": "exact for d ≤ 6, L ≤ 3 and d ≤ 4, L = 4", "paper": "as full"},
)
def check_d3(ctx: Context) -> None:
    sizes = ctx.pick([(d, L) for d in range(2, 6) for L in (2, 3)],
                     [(d, L) for d in range(2, 7) for L in (2, 3)] + [(d, 4) for d in range(2, 5)])
    sums_ok = all(cyclotomic_is_zero(sum(OMEGA ** ((ell * a) % d) for ell in range(d)) - (d if a == 0 else 0), d)
                  for d in range(2, 7) for a in range(d))
    ctx.prove("Σ_l ψ^{la} = d·[d | a]", "exact", sums_ok, "all residues a mod d, d = 2..6, in Q(ψ)")
    for d, depth in sizes:
        defects = exact_convolution_decomposition_defects(d, depth)
        ctx.prove(f"d = {d}, L = {depth}", "exact", defects == 0,
                  "every entry of Σ_j [Sx]_j (F^*[:, j])^⊗L − M_conv(x) is 0 in Q(ψ) (all basis inputs)",
                  {"defects": defects})
    worst = max(decomposition_defect(convolutional_tensor(d, [d] * (depth - 1)),
                                     convolution_decomposition(d, depth))["tensor"]
                for d in range(2, 13) for depth in (2, 3, 4) if d ** depth <= 2000)
    ctx.support("float64, d ≤ 12, L ≤ 4", "numeric", worst <= 1e-13, "max entry error ≤ 1e-13",
                {"max_error": worst})
    shifted = exact_convolution_decomposition_defects(4, 3, exponent_shift=sympy.Rational(1, 2))
    unconjugated = exact_convolution_decomposition_defects(4, 3, conjugate=False)
    ctx.control("wrong scale d^(L/2) and U = F are rejected", shifted > 0 and unconjugated > 0,
                "d = 4, L = 3: both perturbed decompositions leave nonzero entries in Q(ψ)",
                {"defects_scale": shifted, "defects_unconjugated": unconjugated})
