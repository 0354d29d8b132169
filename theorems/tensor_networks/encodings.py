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
from flint import arb

from numerics import backend as B
from numerics.networks import Network, circular_convolutional, diagonal, fully_connected
from numerics.symbolic import is_identically_zero
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)
from numerics.tolerances import at_most
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
    mirror,
)
from verify import Context, Decision, claim, criterion, plain

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


def named_shape(family: str, model: LinearTensorNetwork, network: Network) -> tuple[str, LinearTensorNetwork, Network]:
    """(name, tensor encoding, layered network) with the name read off both objects, so that the report shows the
    instance actually checked (a changed size or depth changes the name)."""
    widths = (network.d_in, *(layer.shape[0] for layer in network.layers))
    return (f"{family}, d = {model.d_in}, k = {model.sizes} (network widths {widths}, parameters per layer "
            f"{network.sizes})", model, network)


@functools.cache
def architectures(quick: bool = True) -> tuple[tuple[str, LinearTensorNetwork, Network], ...]:
    """(name, tensor encoding, layered network) for the three families; parameters share one layout."""
    shapes = [named_shape("diagonal", diagonal_tensor(3, 3), diagonal(3, 3, "linear")),
              named_shape("convolution", convolutional_tensor(5, [3, 4]),
                          circular_convolutional(5, 3, [3, 4], "linear")),
              named_shape("fully connected", fully_connected_tensor([3, 4, 2]),
                          fully_connected([3, 4, 2, 1], "linear"))]
    if not quick:
        shapes += [named_shape("diagonal", diagonal_tensor(4, 4), diagonal(4, 4, "linear")),
                   named_shape("convolution, full length", convolutional_tensor(6, [6, 6]),
                               circular_convolutional(6, 3, None, "linear")),
                   named_shape("fully connected", fully_connected_tensor([2, 3, 2, 3]),
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
    return [sympy.expand(e - s * u) for ell, v in enumerate(vectors)
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


def half_sample_symmetric_vector(d: int) -> list[sympy.Symbol]:
    """The generic vector symmetric about the half-sample point (x_(j+1) = x_(d−j)): x_k = b_{min(k, d−1−k)}, a
    control input of the even-vector claims (F x is neither real nor even for it)."""
    return [sympy.Symbol(f"b{min(k, d - 1 - k)}", real=True) for k in range(d)]


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


MULTILINEAR = ("the definition's identities: L = 2 as B_1 A B_2^T, the defining sum, composition, vector contraction "
               "(L = 2: 2 × 3 tensor; L = 3: 2 × 2 × 2 tensor and 2 × 2 maps)")


@functools.cache
def _symbolic_identities(perturbed: bool) -> dict[str, np.ndarray]:
    return _multilinear_identities(_symbols("a", 2, 3), _symbols("b", 2, 2), _symbols("c", 4, 3), _symbols("u", 2),
                                   _symbols("w", 3), _symbols("t", 2, 2, 2), [_symbols(name, 2, 2) for name in "def"],
                                   [_symbols(name, 2, 2) for name in "ghk"], perturbed=perturbed)


@criterion("left side minus right side vanishes identically in every entry (sympy)")
def identity_holds(identity: str, perturbed: bool) -> Decision:
    difference = _symbolic_identities(perturbed)[identity]
    test = is_identically_zero(sympy.Matrix(difference.reshape(difference.shape[0], -1).tolist()))
    return Decision(test.proved, test.description)


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
    conclusions={MULTILINEAR: "certified"},
    profiles={"quick": "sympy identities on explicit symbolic entries (L = 2: 2×3 tensor, maps 2×2 and 4×3; "
                       "L = 3: 2×2×2 tensor, 2×2 maps); controls: the same identities under perturbed readings",
              "full": "as quick", "paper": "as quick"},
)
def check_multilinear(ctx: Context) -> None:
    for name in _symbolic_identities(False):
        ctx.prove(name, "symbolic", identity_holds(name, False))
    readings = {"L = 2 gives B_1 A B_2^T": "B_1ᵀ A B_2ᵀ", "agrees with the defining sum of tensor products (L = 3)":
                "a sum without B_1", "composition rule (L = 3)": "A∘((B_l C_l)ᵀ), the reversed composition"}
    for name, reading in readings.items():
        ctx.control(f"{name}: {reading} is rejected", identity_holds(name, True),
                    change=f"the right side → {reading}")


ENCODING_TOLERANCE = 1e-12  # float64 agreement of two evaluations of one function (values are O(1))


def _activations() -> dict[str, tuple[Activation, bool]]:
    """name → (φ, φ(0) = 0)."""
    return {"linear": (lambda z: z, True), "ReLU": (lambda z: np.maximum(z, 0.0), True),
            "tanh": (np.tanh, True), "sigmoid": (sigmoid, False)}


def _symbolic_shapes() -> tuple[tuple[str, LinearTensorNetwork, Network], ...]:
    """Small shapes for the generic-φ proofs: every family, depth 3 (where padding zeros first appear)."""
    return (named_shape("diagonal", diagonal_tensor(2, 3), diagonal(2, 3, "linear")),
            named_shape("convolution", convolutional_tensor(3, [2, 3]), circular_convolutional(3, 3, [2, 3], "linear")),
            named_shape("fully connected", fully_connected_tensor([2, 2, 2]), fully_connected([2, 2, 2, 1], "linear")))


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


NETWORKS_PRINTED = "the tensor formulation (2) computes the networks (3)–(5) for any entrywise activation φ"
_ARB_ACTIVATIONS = {"sigmoid": lambda z: 1 / (1 + (-z).exp()), "tanh": lambda z: z.tanh(), "linear": lambda z: z}


def _exact_forms(model: LinearTensorNetwork, network: Network, theta: np.ndarray, x: np.ndarray, activation: str
                 ) -> tuple[arb, arb]:
    """(tensor form (2), network (3)–(5)) at integer θ and x, in ball arithmetic (python-flint arb, 53 bits): the
    data tensor and the weight matrices are exact integers, φ is evaluated with rigorous error bounds."""
    phi = np.vectorize(_ARB_ACTIVATIONS[activation], otypes=[object])
    as_arb = np.vectorize(lambda v: arb(int(v)), otypes=[object])
    parts = [as_arb(v) for v in model.split(np.asarray(theta, dtype=float))]
    H = np.tensordot(as_arb(x), model.basis.astype(int).astype(object), axes=(0, 0))
    for v in parts[:-1]:
        H = phi(np.tensordot(v, H, axes=(0, 0)))
    tensor = np.dot(H, parts[-1])
    h = as_arb(x)
    matrices = [as_arb(np.rint(W)) for W in network.matrices(np.asarray(theta, dtype=float))]
    for W in matrices[:-1]:
        h = phi(W.dot(h))
    return tensor, matrices[-1].dot(h)[0]


@criterion("tensor form (2) ≠ network (3)–(5) at the point: the enclosure of their difference excludes 0")
def forms_differ(model: LinearTensorNetwork, network: Network, theta: np.ndarray, x: np.ndarray,
                 activation: str) -> Decision:
    tensor, layered = _exact_forms(model, network, theta, x, activation)
    difference = tensor - layered
    differ = bool(difference > 0 or difference < 0)
    return Decision(differ, f"tensor form {tensor.str(8)}, network {layered.str(8)}, difference "
                    f"{difference.str(8)} ({'excludes' if differ else 'contains'} 0)",
                    {"tensor_form": float(tensor.mid()), "network": float(layered.mid())})


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
    conclusions={NETWORKS_PRINTED: "refuted"},
    erratum="substantive",
    corrected_by="tensor.def.networks.corrected",
    profiles={"quick": "the sigmoid at one integer point (θ, x) per network, diag (d 3, L 3) and FC (3, 4, 2), in "
                       "ball arithmetic; controls: tanh at the same points, and the conv network (d 5, k (3, 4))",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("Sec. 3 states the equivalence of (2) with (3) and (5) for a general activation; it needs φ(0) = 0 "
            "because the structural zeros of M_diag and M_fc go through φ. The conv encoding has no "
            "structural zeros and holds for every φ. None of the paper's results (all for linear φ) is affected."),
           ("Erratum 'substantive': the printed wording covers every entrywise activation, and a standard one (the "
            "sigmoid, φ(0) = 1/2) fails; tensor.def.networks.corrected states the condition φ(0) = 0.")),
)
def check_networks(ctx: Context) -> None:
    rng = ctx.rng("integer points")
    shapes = {name: (model, network) for name, model, network in architectures(True)}
    for name, (model, network) in shapes.items():
        theta = rng.integers(1, 4, size=model.n_params) * rng.choice([-1, 1], size=model.n_params)
        x = rng.integers(1, 4, size=model.d_in) * rng.choice([-1, 1], size=model.d_in)
        if name.startswith("conv"):
            ctx.control(f"{name}: sigmoid, no structural zeros, is not a counterexample",
                        forms_differ(model, network, theta, x, "sigmoid"),
                        change="model: a network with padding zeros → the convolution (no structural zeros)")
            continue
        ctx.counterexample(f"sigmoid (φ(0) = 1/2): {name}", "interval", forms_differ(model, network, theta, x,
                                                                                    "sigmoid"),
                           "integer θ and x; the structural zeros of M go through φ and contribute φ(0) = 1/2")
        ctx.control(f"{name}: tanh (φ(0) = 0) at the same point is not a counterexample",
                    forms_differ(model, network, theta, x, "tanh"), change="activation: sigmoid → tanh")


CORRECTED_GENERIC = ("(2) computes (3)–(5) for every φ with φ(0) = 0, and (4) for every φ (generic φ; depth 3: "
                     "diag d = 2, conv d = 3 k = (2, 3), FC widths (2, 2, 2))")
CORRECTED_FLOAT = ("the same in float64 for linear, ReLU and tanh (diag d 3 L 3, conv d 5 k (3, 4), FC (3, 4, 2); "
                   "more shapes on full)")


@criterion("tensor form (2) − network vanishes identically, φ an undefined function (sympy)")
def encodes(model: LinearTensorNetwork, network: Network, phi_at_zero: object | None) -> Decision:
    test = is_identically_zero(symbolic_encoding_difference(model, network, phi_at_zero))
    return Decision(test.proved, test.description)


@criterion("max |tensor form − network| ≤ 1e-12 over random parameters and inputs (float64)")
def agrees_in_float(shapes: str, activations: tuple[str, ...], seed: int, samples: int) -> Decision:
    rng = np.random.default_rng(seed)
    table = _activations()
    family = {"quick": architectures(True), "full": architectures(False), "misencodings": _misencodings()}[shapes]
    gaps = {(name, act): encoding_gap(model, network, table[act][0], rng, samples)
            for name, model, network in family for act in activations}
    worst = max(gaps.values())
    (name, act) = max(gaps, key=gaps.get)
    return Decision(at_most(worst, ENCODING_TOLERANCE), f"largest gap {worst:.3g} ({name}, {act}) against "
                    f"{ENCODING_TOLERANCE:g}; shapes: " + "; ".join(shape for shape, _, _ in family),
                    {"max_gap": worst, "tolerance": ENCODING_TOLERANCE})


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
    conclusions={CORRECTED_GENERIC: "certified", CORRECTED_FLOAT: "confirmed"},
    corrects="tensor.def.networks",
    profiles={"quick": "generic φ (sympy undefined function) on depth-3 diag (d 2), conv (d 3, k (2, 3)) and FC "
                       "(2, 2, 2); float checks with linear/ReLU/tanh on the quick shapes of tensor.def.networks",
              "full": "float checks on the larger shapes too, 10 instances", "paper": "as full"},
    notes=plain(("The symbolic proofs cover the listed shapes (every entry symbolic, φ an undefined function); larger "
            "shapes are float64 evidence.")),
)
def check_networks_corrected(ctx: Context) -> None:
    for name, model, network in _symbolic_shapes():
        convolution = name.startswith("conv")
        ctx.prove(f"generic φ{'' if convolution else ' with φ(0) = 0'}: {name}", "symbolic",
                  encodes(model, network, None if convolution else 0), conclusion=CORRECTED_GENERIC)
        if not convolution:
            ctx.control(f"{name}: dropping φ(0) = 0 is rejected", encodes(model, network, None),
                        change="φ(0): 0 → unconstrained")
    shapes = ctx.pick("quick", "full")
    seed = int(ctx.rng("instances").integers(2 ** 31))
    samples = ctx.pick(3, 10)
    ctx.support("linear, ReLU, tanh on larger shapes", "numeric",
                agrees_in_float(shapes, ("linear", "ReLU", "tanh"), seed, samples), conclusion=CORRECTED_FLOAT)
    ctx.control("the sigmoid (φ(0) = 1/2) is rejected", agrees_in_float(shapes, ("sigmoid",), seed, samples),
                change="activations: linear, ReLU, tanh → sigmoid")
    ctx.control("misencodings are rejected", agrees_in_float("misencodings", ("linear",), seed, samples),
                change="shapes: the encodings of App. B → row-major vec(W_1) and a flipped convolution")


def _flow_formula_gaps(basis: np.ndarray, parts: Sequence[np.ndarray], X: np.ndarray, r: np.ndarray,
                       sign: int, shift: int) -> list[np.ndarray]:
    """Per layer: −Σ_i r_i ∂f(x_i)/∂v_l (chain rule, by differentiation) minus the formula of eq. (7) with
    ``sign``·Xᵀr and the identity at mode l + ``shift`` (the statement: sign −1, shift 0).

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


GF_FORMULA = ("eq. (7): −∇_(v_l) L = M(−Xᵀr)∘(v_1, …, I, …, v_L) for any differentiable loss (generic data "
              "tensor, d = 2, k = (2, 2, 2), n = 2)")
GF_RESIDUALS = "the residuals ℓ'(f, y) of the exponential and the square loss"


@functools.cache
def _generic_gradient_instance() -> tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray]:
    basis, parts = generic_tensor_network((2, 2, 2), 2)
    return basis, parts, _symbols("x", 2, 2), _symbols("r", 2)


@criterion("chain-rule gradient of layer l minus M(sign·Xᵀr)∘(…, I at mode l + shift, …) vanishes identically (sympy)")
def gradient_formula(layer: int, sign: int, shift: int) -> Decision:
    gap = _flow_formula_gaps(*_generic_gradient_instance(), sign=sign, shift=shift)[layer]
    test = is_identically_zero(sympy.Matrix(list(gap)))
    return Decision(test.proved, test.description)


_F, _Y = sympy.symbols("f y", real=True)


@criterion("∂ℓ(f, y)/∂f − r vanishes identically (sympy)")
def residual_formula(loss: sympy.Expr, residual: sympy.Expr) -> Decision:
    test = is_identically_zero(sympy.diff(loss, _F) - residual)
    return Decision(test.proved, test.description)


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
    conclusions={GF_FORMULA: "certified", GF_RESIDUALS: "certified"},
    profiles={"quick": "sympy: a data tensor with a free symbol in every entry (d 2, k (2, 2, 2)), symbolic data "
                       "and residuals (n 2); the two residual formulas", "full": "as quick", "paper": "as quick"},
    notes=plain(("By the chain rule ∇_θ L = Σ_i ℓ'(f_i, y_i) ∇_θ f(x_i), so the identity is proved with the residuals "
            "as free symbols (any differentiable loss), and the two residual formulas separately.")),
)
def check_gf(ctx: Context) -> None:
    for layer in range(3):
        ctx.prove(f"layer {layer + 1}: chain rule gives eq. (7)", "symbolic", gradient_formula(layer, -1, 0),
                  conclusion=GF_FORMULA)
    ctx.control("M(+Xᵀr) is rejected", gradient_formula(0, 1, 0), change="sign: −Xᵀr → +Xᵀr")
    ctx.control("the wrong free mode is rejected", gradient_formula(1, -1, 1), change="free mode: l → l + 1")
    exponential, square = sympy.exp(-_F * _Y), (_F - _Y) ** 2 / 2
    ctx.prove("exponential loss: r = −y e^(−y f)", "symbolic", residual_formula(exponential, -_Y * sympy.exp(-_Y * _F)),
              conclusion=GF_RESIDUALS)
    ctx.prove("square loss: r = f − y", "symbolic", residual_formula(square, _F - _Y), conclusion=GF_RESIDUALS)
    ctx.control("exponential loss with the sign of r flipped is rejected",
                residual_formula(exponential, _Y * sympy.exp(-_Y * _F)), change="r: −y e^(−yf) → y e^(−yf)")
    ctx.control("square loss with r = y − f is rejected", residual_formula(square, _Y - _F), change="r: f − y → y − f")


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


TSV_MATRIX = "L = 2: (8) is s u = A v, s v = Aᵀu (symbolic A of sizes 2 × 3 and 3 × 3)"
TSV_TERMS = ("the terms of an orthogonal decomposition are singular tuples (exact rational instances 3 × 3 and "
             "3 × 3 × 3; also 4 × 4 × 4 on full)")


@criterion("mode-1 and mode-2 contractions of (8) equal A v and Aᵀu (or, swapped, Aᵀu and A v) identically (sympy)")
def matrix_reading(rows: int, columns: int, swapped: bool) -> Decision:
    A, u, v = _symbols("a", rows, columns), _symbols("u", rows), _symbols("w", columns)
    first, second = (A.T.dot(u), A.dot(v)) if swapped else (A.dot(v), A.T.dot(u))
    test = is_identically_zero(sympy.Matrix(list(contract_all_but(A, [u, v], 0) - first)
                                            + list(contract_all_but(A, [u, v], 1) - second)))
    return Decision(test.proved, test.description)


@criterion("A∘(u_1, …, I, …, u_L) = σ u_l exactly for every mode l")
def singular_tuple_exact(A: np.ndarray, vectors: tuple[np.ndarray, ...], sigma: sympy.Expr) -> Decision:
    defects = sum(1 for e in exact_singular_tuple_defect(A, list(vectors), sigma) if e != 0)
    return Decision(defects == 0, f"{defects} nonzero defect entries", {"nonzero_defects": defects})


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
    conclusions={TSV_MATRIX: "certified", TSV_TERMS: "certified"},
    profiles={"quick": "sympy (L = 2, symbolic A, u, v); exact rational orthogonal decompositions (L = 2, 3; "
                       "3×3(×3))",
              "full": "as quick plus a 4×4×4 exact instance", "paper": "as full"},
)
def check_tsv(ctx: Context) -> None:
    for rows, columns in ((2, 3), (3, 3)):
        ctx.prove(f"L = 2, {rows} × {columns}: (8) is s u = A v, s v = Aᵀu", "symbolic",
                  matrix_reading(rows, columns, False), conclusion=TSV_MATRIX)
    ctx.control("the swapped reading is rejected", matrix_reading(3, 3, True),
                change="mode 1 ↔ mode 2: s u = Aᵀu, s v = A v")
    rng = ctx.rng("decompositions")
    shapes = [(3, 3), (3, 3, 3)] + ([(4, 4, 4)] if ctx.profile.value != "quick" else [])
    for sizes in shapes:
        values = [sympy.Rational(3), sympy.Rational(2), sympy.Rational(1, 2), sympy.Rational(1, 3)][: min(sizes)]
        A_exact, factors = _orthogonally_decomposable(rng, sizes, values)
        for j, sigma in enumerate(values):
            term = tuple(np.array(list(U[:, j]), dtype=object) for U in factors)
            ctx.prove(f"shape {sizes}, term {j + 1}", "exact", singular_tuple_exact(A_exact, term, sigma),
                      "rational orthogonal factors from Cayley transforms", conclusion=TSV_TERMS)
        mixed = tuple(np.array(list(U[:, ell % 2]), dtype=object) for ell, U in enumerate(factors))
        ctx.control(f"shape {sizes}: a tuple mixing terms 1 and 2 is rejected",
                    singular_tuple_exact(A_exact, mixed, values[0]),
                    change="vectors: term 1 in every mode → terms 1 and 2 alternating")


def _exact_identity_check(model: LinearTensorNetwork, decomposition: Decomposition) -> bool:
    """Assumption 1 for a real integer decomposition, in exact integer arithmetic."""
    S, U = decomposition.S.astype(int), [u.astype(int) for u in decomposition.U]
    basis = np.einsum("jk," + ",".join(f"{a}j" for a in "abcdefgh"[: len(U)]) + "->k" + "abcdefgh"[: len(U)],
                      S, *U)
    orthonormal = all(np.array_equal(u.T @ u, np.eye(S.shape[0], dtype=int)) for u in U)
    # d ≤ m ≤ k_l needs no test of its own: rank S = d gives d ≤ m, and m orthonormal columns of a k_l-row U_l
    # (k_l being model.sizes once the basis matches) give m ≤ k_l
    return bool(np.array_equal(basis, model.basis.astype(int)) and orthonormal
                and sympy.Matrix(S.tolist()).rank() == S.shape[1])


def _exact_dft_is_unitary(d: int) -> bool:
    """F F^* = I in Q(ψ): U_l = F^* has orthonormal columns and S = d^{(L−1)/2} F is invertible."""
    product = exact_dft_matrix(d) * exact_dft_matrix(d, conjugate=True) - sympy.eye(d)
    return all(cyclotomic_is_zero(entry, d) for entry in product)


ASM_DIAG = "diagonal networks satisfy it with S = U_l = I (d = 3, L = 2, 3)"
ASM_CONV = ("full-length convolutional networks satisfy it with S = d^((L−1)/2) F, U_l = F^* (d = 3, 4, L = 2, 3; "
            "d ≤ 6 on full)")
ASM_CONV_FLOAT = "the same in float64 for d = 2..8, L = 2, 3, 4"
ASM_FC = ("fully-connected networks do not satisfy it in general (widths (2, 2): an exact necessary condition "
          "fails)")


@criterion("Assumption 1 in integer arithmetic: the decomposition reproduces M, U_lᵀU_l = I, rank S = d, d ≤ m ≤ k_l")
def integer_decomposition(model: LinearTensorNetwork, S: np.ndarray, U: tuple[np.ndarray, ...]) -> bool:
    return _exact_identity_check(model, Decomposition(S, U))


@criterion("F F^* = I and Σ_j [d^((L−1)/2 + shift) F e_k]_j U[:, j]^(⊗L) = M_conv(e_k) for all k, exactly in Q(ψ)")
def convolution_decomposes(d: int, depth: int, exponent_shift: sympy.Expr, conjugate: bool) -> Decision:
    unitary = _exact_dft_is_unitary(d)
    defects = exact_convolution_decomposition_defects(d, depth, exponent_shift, conjugate)
    return Decision(unitary and defects == 0, f"F F^* = I: {unitary}; {defects} nonzero entries",
                    {"defects": defects})


@criterion("float64: max entry error of the reconstructed full-length convolution tensor ≤ 1e-13")
def convolution_decomposes_float(sizes: tuple[tuple[int, int], ...], conjugate: bool) -> Decision:
    worst = 0.0
    for d, depth in sizes:
        decomposition = convolution_decomposition(d, depth)
        if not conjugate:
            decomposition = Decomposition(decomposition.S, tuple(U.conj() for U in decomposition.U))
        worst = max(worst, decomposition_defect(convolutional_tensor(d, [d] * (depth - 1)), decomposition)["tensor"])
    limit = 1e-13
    return Decision(at_most(worst, limit), f"max error {worst:.3g} (≤ {limit:g}?)", {"max_error": worst})


@criterion("the unfolding products M_(l)(e_a) M_(l)(e_b)ᵀ do not all commute (exact, integer data tensor)")
def violates_necessary_condition(model: LinearTensorNetwork) -> Decision:
    commutator = unfolding_commutator(model)
    return Decision(commutator > 0, f"largest commutator entry {commutator:g}", {"commutator": commutator})


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
    conclusions={ASM_DIAG: "certified", ASM_CONV: "certified", ASM_CONV_FLOAT: "confirmed", ASM_FC: "certified"},
    profiles={"quick": "exact: diag (d 3, L 2, 3) in integers, full conv (d 3, 4; L 2, 3) in Q(ψ); float: conv "
                       "d ≤ 8, L ≤ 4; exact necessary condition (commuting unfolding products) on FC, with diag and "
                       "conv as controls",
              "full": "exact conv for d ≤ 6", "paper": "as full"},
    notes=plain(("The violating instance uses a necessary condition: every mode-l unfolding is U_l diag(Sx) K_lᵀ with "
            "K_l of orthonormal columns, so the products M_(l)(e_a) M_(l)(e_b)ᵀ all commute.")),
)
def check_asm1(ctx: Context) -> None:
    for depth in (2, 3):
        identity = diagonal_decomposition(3, depth)
        ctx.prove(f"diagonal, d = 3, L = {depth}: S = U_l = I", "exact",
                  integer_decomposition(diagonal_tensor(3, depth), np.eye(3, dtype=int),
                                        tuple(np.eye(3, dtype=int) for _ in identity.U)), conclusion=ASM_DIAG)
    ctx.control("diagonal, S = 2I is rejected", integer_decomposition(diagonal_tensor(3, 2), 2 * np.eye(3, dtype=int),
                                                                     (np.eye(3, dtype=int),) * 2),
                change="S: I → 2I")
    for d in ctx.pick((3, 4), (3, 4, 5, 6)):
        for depth in (2, 3):
            ctx.prove(f"full-length convolution, d = {d}, L = {depth}", "exact",
                      convolution_decomposes(d, depth, sympy.S.Zero, True), "exact in the cyclotomic field Q(ψ)",
                      conclusion=ASM_CONV)
    ctx.control("U_l = F instead of F^* is rejected", convolution_decomposes(3, 2, sympy.S.Zero, False),
                change="U_l: F^* → F")
    ctx.control("S = d^(L/2) F is rejected", convolution_decomposes(3, 2, sympy.Rational(1, 2), True),
                change="scale: d^((L−1)/2) → d^(L/2)")
    sizes = tuple((d, depth) for d in range(2, 9) for depth in (2, 3, 4))
    ctx.support("full-length convolution in float64, d ≤ 8, L ≤ 4", "numeric",
                convolution_decomposes_float(sizes, True), conclusion=ASM_CONV_FLOAT)
    ctx.control("float64: U_l = F is rejected", convolution_decomposes_float(sizes, False), change="U_l: F^* → F")
    ctx.prove("fully connected, widths (2, 2): M(x) = I ⊗ x", "exact",
              violates_necessary_condition(fully_connected_tensor([2, 2])), conclusion=ASM_FC)
    ctx.control("the diagonal network passes the necessary condition", violates_necessary_condition(
        diagonal_tensor(3, 3)), change="model: FC (2, 2) → diagonal (d 3, L 3)")
    ctx.control("the full-length convolution passes the necessary condition", violates_necessary_condition(
        convolutional_tensor(4, [4, 4])), change="model: FC (2, 2) → full-length convolution (d 4, L 3)")


EVEN_EXACT = "x real and even ⇒ F x real and even (generic even vector, d = 2..6; d = 2..8 on full)"
EVEN_FLOAT = "the same in float64 for random even vectors, d = 2..16"


@criterion("F x is real and even, decided exactly in Q(ψ)[x]")
def dft_real_even(x: tuple[sympy.Expr, ...], d: int) -> Decision:
    real, even = dft_real_and_even(list(x), d)
    return Decision(real and even, f"F x real: {real}, even: {even}")


def _half_sample_basis(d: int) -> np.ndarray:
    """0/1 columns spanning the vectors symmetric about the half-sample point (x_(j+1) = x_(d−j))."""
    columns = []
    for k in range((d + 1) // 2):
        e = np.zeros(d)
        e[k] = e[d - 1 - k] = 1.0
        columns.append(e)
    return np.array(columns).T


@criterion("float64: max |Im F x| and max |F x − mirror(F x)| ≤ 1e-13 for random vectors of the given symmetry")
def dft_real_even_float(symmetry: str, seed: int) -> Decision:
    rng = np.random.default_rng(seed)
    worst, dims = 0.0, range(2, 17)
    for d in dims:
        basis = even_basis(d) if symmetry == "even" else _half_sample_basis(d)
        y = dft_matrix(d) @ (basis @ rng.normal(size=basis.shape[1]))
        worst = max(worst, float(np.max(np.abs(y.imag))), float(np.max(np.abs(y - mirror(y)))))
    limit = 1e-13
    return Decision(at_most(worst, limit), f"max error {worst:.3g} over d = {dims[0]}..{dims[-1]} (≤ {limit:g}?)",
                    {"max_error": worst})


@claim(
    id="tensor.def.even",
    ref="App. A.4 (definition of even vectors); App. F.4",
    kind="definition",
    title="Even vectors and their DFT",
    statement=("$x in RR^d$ is even when $x_(j+2) = x_(d-j)$ for $j = 0, dots, floor((d-3)/2)$ (symmetric about "
               "$x_1$). If $x$ is real and even, then $F x$ is real and even."),
    hypotheses=plain("F the unitary DFT matrix"),
    conclusions={EVEN_EXACT: "certified", EVEN_FLOAT: "confirmed"},
    profiles={"quick": "exact in Q(ψ) for the generic even vector, d = 2..6; float d ≤ 16",
              "full": "exact for d = 2..8", "paper": "as full"},
)
def check_even(ctx: Context) -> None:
    for d in range(2, ctx.pick(7, 9)):
        ctx.prove(f"d = {d}", "exact", dft_real_even(tuple(symbolic_even_vector(d)), d),
                  "generic even vector (free symbols): F x − conj(F x) and F x − mirror(F x) vanish in Q(ψ)[x]",
                  conclusion=EVEN_EXACT)
    ctx.control("d = 4, a generic vector is rejected", dft_real_even(tuple(sympy.symbols("y0:4", real=True)), 4),
                change="x: even → generic")
    ctx.control("d = 5, a half-sample symmetric vector is rejected",
                dft_real_even(tuple(half_sample_symmetric_vector(5)), 5),
                change="x: symmetric about x_1 → symmetric about the half-sample point (x_(j+1) = x_(d−j))")
    seed = int(ctx.rng("float").integers(2 ** 31))
    ctx.support("float64, d = 2..16", "numeric", dft_real_even_float("even", seed), conclusion=EVEN_FLOAT)
    ctx.control("float64: half-sample symmetric vectors are rejected", dft_real_even_float("half-sample", seed),
                change="symmetry: even → half-sample")


D3_SUMS = "Σ_(l=1)^d ψ^((l−1)a) = d·[d | a] (d = 2..6, every residue a)"
D3_EXACT = "the decomposition of M_conv (d = 2..5, L = 2, 3; also d = 6 and L = 4 for d ≤ 4 on full)"
D3_FLOAT = "the same in float64 (d ≤ 12, L ≤ 4, d^L ≤ 2000)"


@criterion("Σ_l ψ^(la) − factor·d·[d | a] = 0 in Q(ψ) for every residue a")
def root_of_unity_sums(ds: tuple[int, ...], factor: sympy.Expr) -> Decision:
    wrong = [(d, a) for d in ds for a in range(d)
             if not cyclotomic_is_zero(sum(OMEGA ** ((ell * a) % d) for ell in range(d))
                                       - (factor * d if a == 0 else 0), d)]
    return Decision(not wrong, f"{len(wrong)} (d, a) pairs fail: {wrong[:4]}")


@claim(
    id="tensor.aux.D3",
    ref="App. D.3 (proof of Corollary 3)",
    kind="lemma",
    title="The DFT diagonalizes full-length circular convolutions",
    statement=("For full-length filters ($k_l = d$), $M_\"conv\"(x) = sum_(j=1)^d [d^((L-1)/2) F x]_j "
               "(F^*[:, j])^(times.o L)$, using $sum_(l=1)^d psi^((l-1) a) = d [d | a]$ with "
               "$psi = e^(-2 pi i \\/ d)$."),
    hypotheses=plain("d ≥ 2, L ≥ 2"),
    conclusions={D3_SUMS: "certified", D3_EXACT: "certified", D3_FLOAT: "confirmed"},
    profiles={"quick": "exact in Q(ψ): the root-of-unity sums and the identity for d = 2..5, L = 2, 3; float "
                       "d ≤ 12, L ≤ 4",
              "full": "exact for d ≤ 6, L ≤ 3 and d ≤ 4, L = 4", "paper": "as full"},
)
def check_d3(ctx: Context) -> None:
    sizes = ctx.pick([(d, L) for d in range(2, 6) for L in (2, 3)],
                     [(d, L) for d in range(2, 7) for L in (2, 3)] + [(d, 4) for d in range(2, 5)])
    ds = tuple(range(2, 7))
    ctx.prove("Σ_l ψ^(la) = d·[d | a]", "exact", root_of_unity_sums(ds, sympy.S.One), conclusion=D3_SUMS)
    ctx.control("the factor 1/2 is rejected", root_of_unity_sums(ds, sympy.Rational(1, 2)), change="factor: 1 → 1/2")
    for d, depth in sizes:
        ctx.prove(f"d = {d}, L = {depth}", "exact", convolution_decomposes(d, depth, sympy.S.Zero, True),
                  "every entry of Σ_j [Sx]_j (F^*[:, j])^⊗L − M_conv(x) is 0 in Q(ψ) (all basis inputs)",
                  conclusion=D3_EXACT)
    ctx.control("d = 4, L = 3: scale d^(L/2) is rejected", convolution_decomposes(4, 3, sympy.Rational(1, 2), True),
                change="scale: d^((L−1)/2) → d^(L/2)")
    ctx.control("d = 4, L = 3: U = F is rejected", convolution_decomposes(4, 3, sympy.S.Zero, False),
                change="U: F^* → F")
    float_sizes = tuple((d, depth) for d in range(2, 13) for depth in (2, 3, 4) if d ** depth <= 2000)
    ctx.support("float64, d ≤ 12, L ≤ 4", "numeric", convolution_decomposes_float(float_sizes, True),
                conclusion=D3_FLOAT)
    ctx.control("float64: U = F is rejected", convolution_decomposes_float(float_sizes, False), change="U: F^* → F")
