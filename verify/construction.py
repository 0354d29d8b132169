"""Constructions: a user's network, data, parameters and claimed properties, read from TOML or JSON.

The format is published as a JSON Schema (``verify/schema/construction.schema.json``) and documented in
``docs/constructions.md``. Loading validates the document against the schema, parses every number, checks
that shapes agree with the architecture, and builds the model, the data and θ. Any problem raises
:class:`ConstructionError` with one line that names the problem and where it is, e.g.
``parameters.layers[1]: expected a 1×2 matrix, got 2×2``.

Numbers: JSON/TOML integers are exact; strings are exact expressions parsed by sympy after a whitelist
check of their syntax tree (integers, decimals, + − × ÷, powers with small constant exponents, sqrt, cbrt,
root(x, n); in witness curves also the variable ``eps``); floats make the construction a floating-point one.
A construction is exact when its data and parameters contain no float.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import sympy
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr, rationalize

from numerics import backend as B
from numerics import exact as E
from numerics.networks import (
    Dense,
    Network,
    circular_convolutional,
    diagonal,
    disjoint_patches,
    fully_connected,
    strided_patches,
)
from numerics.tensor_network import LinearTensorNetwork, convolutional_tensor, diagonal_tensor, fully_connected_tensor

SCHEMA_PATH = Path(__file__).parent / "schema" / "construction.schema.json"
CHECKS = ("feasible", "kkt", "local_optimum", "global_optimum", "gf_limit", "rank", "stable_rank", "layer_optimum",
          "aligned", "predictor_direction")
MARGIN_ONLY = frozenset({"kkt", "local_optimum", "global_optimum", "layer_optimum"})
# The max-margin problem min ½‖θ‖² s.t. margins ≥ 1 is the implicit-bias problem of homogeneous networks only: with
# biases these checks are refused; feasible, rank, stable_rank, aligned, predictor_direction and gf_limit apply.
HOMOGENEOUS_ONLY = MARGIN_ONLY
# Multi-class outputs: the margin problem's constraints are f_{y_i}(x_i) − f_j(x_i) ≥ 1 for j ≠ y_i; the searches and
# second-order / pattern engines are for scalar outputs.
MULTICLASS_UNSUPPORTED = frozenset({"local_optimum", "global_optimum", "layer_optimum"})
DIRECTIONS = ("l2_max_margin", "l1_max_margin")
LIMITS = ("theta", "aligned", "predictor_direction")
EPS = sympy.Symbol("eps", positive=True)  # the variable of witness curves

_MAX_PARAMETERS = 4096
_MAX_TENSOR_ENTRIES = 200_000
_MAX_EXPRESSION_NODES = 200
_MAX_EXPONENT = 64
_MAX_INTEGER_DIGITS = 60
# Every nonzero number must have a magnitude in [_MIN_MAGNITUDE, _MAX_MAGNITUDE]: its square, and a product of two
# such numbers, stay normal float64 numbers (the float engines square θ, multiply layers, divide by norms).
_MIN_MAGNITUDE, _MAX_MAGNITUDE = 1e-150, 1e150
_RANGE = "nonzero numbers must have magnitudes between 1e-150 and 1e150"
_MAX_LITERAL_DIGITS = 100_000  # integer literals longer than this are refused while reading the file
_FUNCTIONS = {"sqrt": (sympy.sqrt, 1), "cbrt": (sympy.cbrt, 1), "root": (sympy.root, 2)}



class PairMargins:
    """Multi-class margins as a scalar model: 'sample' p (the input row is its index) is a pair (i, j), j ≠ y_i,
    with output f_{y_i}(θ; x_i) − f_j(θ; x_i). min_p of these is the multi-class margin
    min_i (f_{y_i}(x_i) − max_{j≠y_i} f_j(x_i)); the max-margin problem's constraints are the pairs' margins ≥ 1,
    and Σ_p e^{−q_p} is the multi-class exponential loss, so the scalar engines (margins, KKT multipliers, the
    flow) run on it unchanged."""

    d_in = 1
    d_out = 1

    def __init__(self, network: Network, X: np.ndarray, labels: Sequence[int]) -> None:
        self.network, self.X = network, X
        self.pairs = tuple((i, int(y), j) for i, y in enumerate(labels) for j in range(network.d_out) if j != y)
        self.activation = network.activation
        self.relu_slope_at_zero = network.relu_slope_at_zero

    def __getattr__(self, name: str) -> Any:  # degree, sizes, n_params, split, matrices, layers, ...
        if name in ("network", "X", "pairs"):
            raise AttributeError(name)
        return getattr(self.network, name)

    def _index(self, P: Any) -> tuple[list[int], list[int], list[int]]:
        ids = [int(v) for v in np.asarray(P, dtype=object).reshape(-1)]
        chosen = [self.pairs[k] for k in ids]
        return [p[0] for p in chosen], [p[1] for p in chosen], [p[2] for p in chosen]

    def forward(self, theta: Any, P: Any) -> Any:
        samples, own, other = self._index(P)
        F = self.network.forward(theta, self.X[samples])
        rows = np.arange(len(samples))
        return (F[..., rows, own] - F[..., rows, other])[..., None]

    def vjp(self, theta: Any, P: Any, G: Any) -> Any:
        samples, own, other = self._index(P)
        G = np.asarray(G)
        full = np.repeat(G * 0, self.network.d_out, axis=-1)
        for k, (a, b) in enumerate(zip(own, other)):
            full[..., k, a] = full[..., k, a] + G[..., k, 0]
            full[..., k, b] = full[..., k, b] - G[..., k, 0]
        return self.network.vjp(theta, self.X[samples], full)

    def jacobian(self, theta: Any, P: Any) -> Any:
        samples, own, other = self._index(P)
        J = self.network.jacobian(theta, self.X[samples])
        rows = np.arange(len(samples))
        return (J[rows, own, :] - J[rows, other, :])[:, None, :]

    def preactivations(self, theta: Any, P: Any) -> list[Any]:
        return self.network.preactivations(theta, self.X[self._index(P)[0]])


class BiasedNetwork:
    """A fully-connected network with a bias vector in every layer: z_l = W_l h_{l−1} + b_l. θ lists per layer
    W_l (row-major) then b_l. Not positively homogeneous: Φ(cθ) ≠ c^L Φ(θ)."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.layers = network.layers
        self.activation = network.activation
        self.relu_slope_at_zero = network.relu_slope_at_zero
        self.d_in, self.d_out, self.depth = network.d_in, network.d_out, network.depth
        self.sizes = tuple(layer.n_params + layer.shape[0] for layer in network.layers)
        self.n_params = sum(self.sizes)

    def split(self, theta: Any) -> list[Any]:
        parts, start = [], 0
        for size in self.sizes:
            parts.append(theta[..., start:start + size])
            start += size
        return parts

    def _weights(self, theta: Any) -> list[tuple[Any, Any]]:
        return [(layer.matrix(u[..., :layer.n_params]), u[..., layer.n_params:])
                for layer, u in zip(self.layers, self.split(theta))]

    def matrices(self, theta: Any) -> list[Any]:
        return [W for W, _ in self._weights(theta)]

    def biases(self, theta: Any) -> list[Any]:
        return [b for _, b in self._weights(theta)]

    def preactivations(self, theta: Any, X: Any) -> list[Any]:
        out, h = [], X
        for W, b in self._weights(theta)[:-1]:
            z = h @ B.transpose(W) + b[..., None, :]
            out.append(z)
            h = self.network._sigma(z)
        return out

    def forward(self, theta: Any, X: Any) -> Any:
        weights = self._weights(theta)
        h = X
        for W, b in weights[:-1]:
            h = self.network._sigma(h @ B.transpose(W) + b[..., None, :])
        W, b = weights[-1]
        return h @ B.transpose(W) + b[..., None, :]

    def vjp(self, theta: Any, X: Any, G: Any) -> Any:
        """∇_θ Σ_i ⟨G_i, Φ(θ; x_i)⟩ for one θ (no run axis)."""
        weights = self._weights(theta)
        hidden, slopes, h = [X], [], X
        for W, b in weights[:-1]:
            z = h @ B.transpose(W) + b[None, :]
            if self.activation != "linear":
                slopes.append(self.network._slopes(z))
                z = z * slopes[-1]
            hidden.append(z)
            h = z
        grads: list[Any] = [None] * len(weights)
        delta = G
        for k in range(len(weights) - 1, -1, -1):
            gW = B.transpose(delta) @ hidden[k]
            grads[k] = np.concatenate([np.asarray(gW).reshape(-1), np.asarray(delta).sum(axis=0)])
            if k > 0:
                delta = delta @ weights[k][0]
                if slopes:
                    delta = delta * slopes[k - 1]
        return np.concatenate(grads)

    def jacobian(self, theta: Any, X: Any) -> Any:
        n, eye = X.shape[0], np.eye(self.d_out, dtype=int)
        exact = np.asarray(X).dtype == object or np.asarray(theta).dtype == object
        rows = []
        for i in range(n):
            per_output = []
            for o in range(self.d_out):
                G = eye[o][None, :].astype(object if exact else float)
                per_output.append(self.vjp(theta, X[i:i + 1], G))
            rows.append(per_output)
        return np.array(rows, dtype=object if exact else float)


Model = Network | LinearTensorNetwork | PairMargins | BiasedNetwork


class ConstructionError(ValueError):
    """A construction file that cannot be read, validated or built; the message is one line."""


@dataclass(frozen=True)
class PropertySpec:
    """One property to check, with its options parsed (numbers as sympy numbers or floats)."""

    check: str
    expect: str  # "holds" (certified or confirmed) or a verdict
    options: Mapping[str, Any]
    where: str  # e.g. "properties[2]"
    note: str = ""


@dataclass(frozen=True, eq=False)
class Construction:
    """A validated construction. ``X``, ``Y``, ``theta`` are object arrays of sympy numbers when ``exact``,
    float64 otherwise; ``theta0`` (the initialization) is always float64."""

    origin: str  # the file it was read from, or "<dict>"
    title: str
    source: str
    description: str
    model: Model  # for exact engines (σ'(0) an exact number), also on the binary values of float inputs
    float_model: Model  # the same network for float engines (σ'(0) a float)
    architecture: str  # e.g. "fully-connected ReLU 2-2-1"
    family: str  # architecture.type, or "tensor/<encoding>"
    loss: str
    exact: bool
    X: np.ndarray
    Y: np.ndarray  # labels (n,) for margin losses, targets (n, d_out) for the square loss
    theta: np.ndarray
    layers: tuple[np.ndarray, ...]  # θ per layer, as given (matrices for dense layers)
    theta0: np.ndarray | None
    properties: tuple[PropertySpec, ...] = field(default=())
    # The network itself (for multi-class outputs ``model`` is its :class:`PairMargins`), its inputs and labels
    # (class indices for multi-class outputs) in the construction's arithmetic.
    network: Any = None
    inputs: np.ndarray | None = None
    labels: np.ndarray | None = None
    classes: int = 0  # number of classes of a multi-class output, 0 for a scalar output
    biased: bool = False

    @property
    def margin_loss(self) -> bool:
        return self.loss != "square"

    @property
    def linear(self) -> bool:
        """A linear network (linear activation or a linear tensor network): it has an end-to-end predictor."""
        return isinstance(self.network, LinearTensorNetwork) or self.network.activation == "linear"

    def predictor(self, theta: np.ndarray) -> np.ndarray:
        """The end-to-end linear predictor: W_L⋯W_1 (d_out × d_in), or β of a tensor network (1 × d_in)."""
        if isinstance(self.network, LinearTensorNetwork):
            return np.asarray(self.network.beta(theta)).reshape(1, -1)
        product = None
        for W in self.network.matrices(theta):
            product = W if product is None else W @ product
        return product


# -- numbers -------------------------------------------------------------------------------------------------
_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Call, ast.Load,
                  ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.BitXor, ast.USub, ast.UAdd)


def _constant_exponent(node: ast.AST, where: str) -> Fraction:
    """The value of a constant exponent (numbers, + − × ÷ only), bounded so that powers stay cheap."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _constant_exponent(node.operand, where)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left, right = _constant_exponent(node.left, where), _constant_exponent(node.right, where)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if right == 0:
            raise ConstructionError(f"{where}: division by zero in an exponent")
        return left / right
    raise ConstructionError(f"{where}: exponents must be constant numbers such as 2 or -1/3")


def _power_size(node: ast.AST, where: str) -> Fraction:
    """|exponent| of a power times that of the largest power inside its base: (2^8)^8 counts as 64."""
    inner = [_power_size(child, where) for child in ast.walk(node.left)
             if isinstance(child, ast.BinOp) and isinstance(child.op, (ast.Pow, ast.BitXor))]
    return abs(_constant_exponent(node.right, where)) * max([Fraction(1), *inner])


def _check_syntax(text: str, where: str, symbols: Mapping[str, sympy.Symbol]) -> None:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ConstructionError(f"{where}: cannot parse {text!r} as a number or expression") from None
    nodes = list(ast.walk(tree))
    if len(nodes) > _MAX_EXPRESSION_NODES:
        raise ConstructionError(f"{where}: expression too long")
    for node in nodes:
        if not isinstance(node, _ALLOWED_NODES):
            raise ConstructionError(f"{where}: {text!r} is not an arithmetic expression "
                                    f"(unsupported {type(node).__name__.lower()})")
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ConstructionError(f"{where}: {text!r} contains a non-numeric constant")
            if abs(node.value) >= 10**_MAX_INTEGER_DIGITS:
                raise ConstructionError(f"{where}: a number with more than {_MAX_INTEGER_DIGITS} digits in {text!r}")
        if isinstance(node, ast.Name) and node.id not in symbols and node.id not in _FUNCTIONS:
            allowed = ", ".join([*symbols, *_FUNCTIONS])
            raise ConstructionError(f"{where}: unknown name {node.id!r} in {text!r} (allowed: {allowed})")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS or node.keywords:
                raise ConstructionError(f"{where}: only sqrt(x), cbrt(x) and root(x, n) may be called in {text!r}")
            arity = _FUNCTIONS[node.func.id][1]
            if len(node.args) != arity:
                raise ConstructionError(f"{where}: {node.func.id} takes {arity} argument(s) in {text!r}")
        if isinstance(node, ast.Name) and node.id in _FUNCTIONS and not any(
                isinstance(parent, ast.Call) and parent.func is node for parent in nodes):
            raise ConstructionError(f"{where}: {node.id} must be called, as in {node.id}(2)")
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.BitXor)):
            if _power_size(node, where) > _MAX_EXPONENT:
                raise ConstructionError(f"{where}: exponent larger than {_MAX_EXPONENT} in {text!r}")
        if isinstance(node, ast.Call) and node.func.id == "root":
            degree = _constant_exponent(node.args[1], where)
            if degree.denominator != 1 or not 1 <= degree <= _MAX_EXPONENT:
                raise ConstructionError(f"{where}: root(x, n) needs an integer n between 1 and {_MAX_EXPONENT}")


class _LongInteger(int):
    """An integer literal too long to print (Python refuses str() beyond 4300 digits): shown by its length."""

    def __repr__(self) -> str:
        return f"an integer with {_digits(self)} digits"

    __str__ = __repr__


def _digits(value: int) -> int:
    """The number of decimal digits of |value|, without converting it to a string."""
    magnitude = abs(int(value))
    guess = max(1, int(magnitude.bit_length() * math.log10(2)))
    return guess + 1 if magnitude >= 10**guess else guess


def _mark_long_integers(document: Any) -> Any:
    """The document with every integer beyond the checker's range wrapped in :class:`_LongInteger`, so that an
    error message about it (ours or the schema's) names its length instead of printing (or failing to print) it."""
    if isinstance(document, dict):
        return {key: _mark_long_integers(value) for key, value in document.items()}
    if isinstance(document, list):
        return [_mark_long_integers(value) for value in document]
    if isinstance(document, int) and not isinstance(document, bool) and abs(document) > _MAX_MAGNITUDE:
        return _LongInteger(document)
    return document


def _in_range(value: Any, where: str, text: str) -> None:
    """Refuse a nonzero number outside [1e-150, 1e150] in magnitude, in one line that names the field."""
    if value != 0 and not _MIN_MAGNITUDE <= abs(value) <= _MAX_MAGNITUDE:
        kind = ("subnormal, too small" if isinstance(value, float) and abs(value) < sys.float_info.min else
                "too small" if abs(value) < _MIN_MAGNITUDE else "too large")
        raise ConstructionError(f"{where}: {text} is {kind} for the checker ({_RANGE})")


def parse_number(value: Any, where: str, symbols: Mapping[str, sympy.Symbol] | None = None) -> sympy.Expr | float:
    """A JSON/TOML number or an expression string, as an exact sympy number (ints, strings) or a float.

    ``symbols`` names the variables an expression may use (witness curves: ``{"eps": EPS}``). Nonzero numbers
    must have magnitudes between 1e-150 and 1e150 (a constant expression's exact value included).
    """
    symbols = dict(symbols or {})
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConstructionError(f"{where}: expected a number, got {_json_type(value)}")
    if isinstance(value, int):
        _in_range(value, where, repr(value) if isinstance(value, _LongInteger) else f"{value:.3g}")
        return sympy.Integer(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConstructionError(f"{where}: {value} is not a finite number")
        _in_range(value, where, repr(value))
        return value
    _check_syntax(value, where, symbols)
    namespace = {name: function for name, (function, _) in _FUNCTIONS.items()} | symbols
    try:
        expr = parse_expr(value.strip(), local_dict=namespace,
                          global_dict={"__builtins__": {}, "Integer": sympy.Integer, "Float": sympy.Float,
                                       "Rational": sympy.Rational},
                          transformations=(auto_number, rationalize, convert_xor))
    except (SyntaxError, TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        raise ConstructionError(f"{where}: cannot evaluate {value!r}") from None
    expr = sympy.sympify(expr)
    if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ConstructionError(f"{where}: {value!r} is not a finite number")
    if expr.free_symbols - set(symbols.values()):
        raise ConstructionError(f"{where}: {value!r} has unknown symbols")
    if not expr.free_symbols and expr.is_real is not True:
        raise ConstructionError(f"{where}: {value!r} is not a real number")
    if not expr.free_symbols and expr != 0:
        magnitude = sympy.Abs(expr)
        if magnitude < sympy.Rational(_MIN_MAGNITUDE) or magnitude > sympy.Rational(_MAX_MAGNITUDE):
            kind = "too small" if magnitude < 1 else "too large"
            raise ConstructionError(f"{where}: {value!r} is {kind} for the checker ({_RANGE})")
    return expr


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


# -- reading and schema validation ---------------------------------------------------------------------------
def _read(path: Path) -> dict[str, Any]:
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise ConstructionError(f"{path}: expected a .toml or .json file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConstructionError(f"{path}: cannot read the file ({reason})") from None
    limit = sys.get_int_max_str_digits()  # 4300 by default: longer literals are parsed here, refused later
    try:
        if limit:
            sys.set_int_max_str_digits(max(limit, _MAX_LITERAL_DIGITS))
        document = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConstructionError(f"{path}: invalid TOML: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConstructionError(f"{path}: invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ConstructionError(f"{path}: nested too deeply") from None
    except ValueError:  # the only other ValueError of both parsers: an integer literal beyond the digit limit
        raise ConstructionError(f"{path}: an integer with more than {_MAX_LITERAL_DIGITS} digits "
                                f"({_RANGE})") from None
    finally:
        sys.set_int_max_str_digits(limit)
    if not isinstance(document, dict):
        raise ConstructionError(f"{path}: the top level must be a table/object, got {_json_type(document)}")
    return document


_VALIDATOR: jsonschema.Draft202012Validator | None = None


def schema() -> dict[str, Any]:
    """The published JSON Schema of construction files."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _validator() -> jsonschema.Draft202012Validator:
    global _VALIDATOR
    if _VALIDATOR is None:
        _VALIDATOR = jsonschema.Draft202012Validator(schema())
    return _VALIDATOR


def _location(path: Sequence[Any]) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "top level"


# Activations named in error messages: positively homogeneous ones the engines do not implement yet (σ(cz) = cσ(z)
# for c > 0 holds for them, so the theory applies), and common ones that are not positively homogeneous.
_HOMOGENEOUS_UNSUPPORTED = {"prelu", "abs"}
_LEAKY_SPELLINGS = {"leakyrelu", "leaky relu", "leaky-relu", "lrelu"}
_NOT_HOMOGENEOUS = {"tanh", "sigmoid", "logistic", "gelu", "elu", "selu", "softplus", "swish", "silu", "mish",
                    "sin", "exp", "relu6", "hardtanh", "square", "quadratic"}


def _activation_message(name: Any) -> str:
    supported = "the checker supports 'relu', 'leaky_relu' and 'linear'"
    key = name.strip().lower() if isinstance(name, str) else None
    if key in _LEAKY_SPELLINGS:
        return f"activation {name!r}: write 'leaky_relu' (with negative_slope = a, 0 < a < 1)"
    if key in _HOMOGENEOUS_UNSUPPORTED:
        return (f"activation {name!r} is positively homogeneous, but not supported yet (its kinks have two nonzero "
                f"slopes, which the KKT, flow and pattern engines do not handle); {supported}")
    if key in _NOT_HOMOGENEOUS:
        return f"activation {name!r} is not positively homogeneous; {supported}"
    return f"activation {name!r} is not supported; {supported} (positively homogeneous activations)"


def _schema_message(error: jsonschema.ValidationError, document: Any) -> str:
    where = _location(error.absolute_path)
    instance = error.instance
    if error.validator == "additionalProperties":
        extra = sorted(set(instance) - set(error.schema.get("properties", {})))
        key = extra[0] if extra else "?"
        if key in ("bias", "biases") and where == "architecture":
            return f"{where}.{key}: write bias = true (fully-connected networks only)"
        return f"{where}: unknown key {key!r}"
    if error.validator == "enum" and "propertyNames" in error.schema_path:
        owner = document
        for part in error.absolute_path:
            owner = owner[part]
        if where.startswith("properties["):
            return f"{where}: key {instance!r} is not an option of check {owner.get('check')!r}"
        if instance == "bias":
            return f"{where}.bias: biases are supported for fully-connected networks only, not type " \
                   f"{owner.get('type')!r}"

        return f"{where}: key {instance!r} is not used by type {owner.get('type')!r}"
    if error.validator == "enum" and list(error.absolute_path)[-1:] == ["activation"]:
        return f"{where}: {_activation_message(instance)}"
    if error.validator == "enum":
        return f"{where}: {instance!r} is not one of {', '.join(map(repr, error.validator_value))}"
    if error.validator == "required":
        missing = [key for key in error.validator_value if key not in instance]
        return f"{where}: missing key {missing[0]!r}" if missing else f"{where}: {error.message}"
    if error.validator == "type":
        expected = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        names = {"number": "a number", "string": "a string", "array": "a list", "object": "a table",
                 "integer": "an integer"}
        return f"{where}: expected {' or '.join(names.get(t, t) for t in expected)}, got {_json_type(instance)}"
    if error.validator in ("minItems", "maxItems"):
        bound = "at least" if error.validator == "minItems" else "at most"
        return f"{where}: needs {bound} {error.validator_value} entries, got {len(instance)}"
    if error.validator == "maxLength":
        return f"{where}: string longer than {error.validator_value} characters"
    if error.validator in ("minimum", "maximum"):
        bound = "at least" if error.validator == "minimum" else "at most"
        return f"{where}: must be {bound} {error.validator_value}, got {instance}"
    return f"{where}: {error.message}"


def _validate(document: Mapping[str, Any], origin: str) -> None:
    try:
        error = next(iter(_validator().iter_errors(document)), None)
    except RecursionError:
        raise ConstructionError(f"{origin}: nested too deeply") from None
    if error is not None:
        raise ConstructionError(_schema_message(error, document))


# -- arrays --------------------------------------------------------------------------------------------------
def _vector(values: Sequence[Any], where: str, symbols: Mapping[str, sympy.Symbol] | None = None) -> list[Any]:
    if any(isinstance(v, list) for v in values):
        raise ConstructionError(f"{where}: expected a vector, got a matrix")
    return [parse_number(v, f"{where}[{j}]", symbols) for j, v in enumerate(values)]


def _matrix(rows: Sequence[Any], where: str, symbols: Mapping[str, sympy.Symbol] | None = None) -> list[list[Any]]:
    if not all(isinstance(row, list) for row in rows):
        raise ConstructionError(f"{where}: expected a matrix (a list of rows), got a vector")
    lengths = [len(row) for row in rows]
    if len(set(lengths)) != 1:
        bad = next(i for i, n in enumerate(lengths) if n != lengths[0])
        raise ConstructionError(f"{where}: rows have different lengths (row {bad} has {lengths[bad]} entries, "
                                f"row 0 has {lengths[0]})")
    return [[parse_number(v, f"{where}[{i}][{j}]", symbols) for j, v in enumerate(row)] for i, row in enumerate(rows)]


def _shape_text(values: Sequence[Any]) -> str:
    """'a 2×3 matrix', 'a vector of length 3' or 'a ragged list'."""
    if all(isinstance(row, list) for row in values):
        lengths = {len(row) for row in values}
        return f"a {len(values)}×{lengths.pop()} matrix" if len(lengths) == 1 else "a ragged list"
    if any(isinstance(v, list) for v in values):
        return "a ragged list"
    return f"a vector of length {len(values)}"


def _array(entries: Any, exact: bool) -> np.ndarray:
    """Object array of sympy numbers (exact) or float64 (floats and expressions evaluated)."""
    if exact:
        return np.array(entries, dtype=object)
    return np.vectorize(lambda v: float(v) if isinstance(v, float) else float(sympy.N(v, 30)),
                        otypes=[np.float64])(np.array(entries, dtype=object))


def _has_float(values: Any) -> bool:
    if isinstance(values, list):
        return any(_has_float(v) for v in values)
    return isinstance(values, float)


# -- architecture --------------------------------------------------------------------------------------------
def _architecture(spec: Mapping[str, Any]) -> tuple[Model, Model, str]:
    kind = spec["type"]
    activation = spec.get("activation", "linear")
    slope_value = spec.get("relu_slope_at_zero", 0)
    slope = parse_number(slope_value, "architecture.relu_slope_at_zero")
    if "relu_slope_at_zero" in spec and activation not in ("relu", "leaky_relu"):
        raise ConstructionError("architecture.relu_slope_at_zero: only meaningful for ReLU networks")
    if "negative_slope" in spec and activation != "leaky_relu":
        raise ConstructionError("architecture.negative_slope: only meaningful for activation 'leaky_relu'")
    negative = 0
    if activation == "leaky_relu":
        if "negative_slope" not in spec:
            raise ConstructionError("architecture: activation 'leaky_relu' needs negative_slope = a (0 < a < 1), "
                                    "e.g. \"1/10\"")
        negative = parse_number(spec["negative_slope"], "architecture.negative_slope")
        if not 0 < float(negative) < 1:
            raise ConstructionError(f"architecture.negative_slope: a must lie in (0, 1) (a = 0 is ReLU), got "
                                    f"{spec['negative_slope']!r}")
    if spec.get("bias", False) and kind != "fully_connected":
        raise ConstructionError(f"architecture.bias: biases are supported for fully-connected networks only, not "
                                f"type {kind!r}")
    if not 0 <= float(slope) <= 1:
        raise ConstructionError(f"architecture.relu_slope_at_zero: σ'(0) must lie in [0, 1], got {slope_value}")
    if kind == "tensor":
        if activation != "linear":
            raise ConstructionError("architecture.activation: tensor networks are linear")
        model = _tensor_network(spec)
        return model, model, f"linear tensor network ({spec['encoding']}, sizes {'-'.join(map(str, model.sizes))})"
    name = {"relu": "ReLU", "leaky_relu": f"leaky ReLU (a = {spec.get('negative_slope')})",
            "linear": "linear"}[activation]
    internal = "relu" if activation == "leaky_relu" else activation  # builders take relu/linear; leaky set below
    if kind == "fully_connected":
        widths = spec["widths"]
        network = fully_connected(widths, internal)
        description = f"fully-connected {name} {'-'.join(map(str, widths))}"
        if spec.get("bias", False):
            description += (", with biases (not homogeneous: the max-margin checks kkt, local_optimum, global_optimum "
                            "and layer_optimum do not apply)")
    elif kind == "diagonal":
        network = diagonal(spec["input_dim"], spec["depth"], internal)
        description = f"diagonal {name}, input dimension {spec['input_dim']}, depth {spec['depth']}"
    elif spec["layout"] == "disjoint_patches":
        network = Network((disjoint_patches(spec["patch"], spec["patches"]), Dense(1, spec["patches"])), internal)
        description = (f"convolutional {name}, {spec['patches']} disjoint patches of size {spec['patch']}, "
                       "then a dense output row")
    elif spec["layout"] == "strided":
        kernel, stride, dim = spec["kernel"], spec["stride"], spec["input_dim"]
        if kernel > dim:
            raise ConstructionError(f"architecture.kernel: the kernel ({kernel}) is longer than input_dim = {dim}")
        conv = strided_patches(kernel, stride, dim)
        network = Network((conv, Dense(1, conv.shape[0])), internal)
        overlap = "overlapping" if stride < kernel else "non-overlapping"
        description = (f"convolutional {name}, one filter of size {kernel} with stride {stride} on input dimension "
                       f"{dim} ({conv.shape[0]} {overlap} windows), then a dense output row")
    else:
        lengths = spec.get("filter_lengths")
        if lengths is not None and (len(lengths) != spec["depth"] - 1 or max(lengths) > spec["input_dim"]):
            raise ConstructionError(f"architecture.filter_lengths: need {spec['depth'] - 1} lengths between 1 and "
                                    f"input_dim = {spec['input_dim']}")
        network = circular_convolutional(spec["input_dim"], spec["depth"], lengths, internal)
        description = f"circular convolutional {name}, input dimension {spec['input_dim']}, depth {spec['depth']}"
    if network.n_params > _MAX_PARAMETERS:
        raise ConstructionError(f"architecture: {network.n_params} parameters, more than the {_MAX_PARAMETERS} "
                                "this checker handles")
    # Integers 0 and 1 work in every number system; other slopes are kept exact for the exact engines.
    exact_slope = int(float(slope)) if float(slope) in (0.0, 1.0) else E.to_exact_number(slope)
    leaky = {"activation": "leaky_relu", "negative_slope": E.to_exact_number(negative)} \
        if activation == "leaky_relu" else {}
    model = dataclasses.replace(network, relu_slope_at_zero=exact_slope, **leaky)
    float_leaky = {"activation": "leaky_relu", "negative_slope": float(negative)} if leaky else {}
    float_model = dataclasses.replace(network, relu_slope_at_zero=float(slope), **float_leaky)
    if spec.get("bias", False):
        biased = BiasedNetwork(model)
        if biased.n_params > _MAX_PARAMETERS:
            raise ConstructionError(f"architecture: {biased.n_params} parameters, more than the {_MAX_PARAMETERS} "
                                    "this checker handles")
        model, float_model = biased, BiasedNetwork(float_model)
    if activation in ("relu", "leaky_relu") and float(slope) != 0:
        description += f", σ'(0) = {slope}"
    return model, float_model, description


def _family(spec: Mapping[str, Any]) -> str:
    return f"tensor/{spec['encoding']}" if spec["type"] == "tensor" else spec["type"]


def _tensor_network(spec: Mapping[str, Any]) -> LinearTensorNetwork:
    encoding = spec["encoding"]
    needed = {"diagonal": ("input_dim", "depth"), "convolutional": ("input_dim", "filter_lengths"),
              "fully_connected": ("widths",)}[encoding]
    for key in needed:
        if key not in spec:
            raise ConstructionError(f"architecture: encoding {encoding!r} needs {key!r}")
    for key in set(spec) - {"type", "encoding", "activation", *needed}:
        raise ConstructionError(f"architecture: key {key!r} is not used by encoding {encoding!r}")
    if encoding == "diagonal":
        entries = spec["input_dim"] ** (spec["depth"] + 1)
    elif encoding == "convolutional":
        entries = spec["input_dim"] ** 2 * math.prod(spec["filter_lengths"])
    else:
        widths = spec["widths"]
        entries = widths[0] * math.prod(widths[k] * widths[k + 1] for k in range(len(widths) - 1)) * widths[-1]
    if entries > _MAX_TENSOR_ENTRIES:
        raise ConstructionError(f"architecture: the data tensor would have {entries} entries, more than "
                                f"{_MAX_TENSOR_ENTRIES}")
    if encoding == "diagonal":
        return diagonal_tensor(spec["input_dim"], spec["depth"])
    if encoding == "convolutional":
        if max(spec["filter_lengths"]) > spec["input_dim"]:
            raise ConstructionError("architecture.filter_lengths: a filter is longer than input_dim")
        return convolutional_tensor(spec["input_dim"], spec["filter_lengths"])
    if len(spec["widths"]) < 2:
        raise ConstructionError("architecture.widths: a fully-connected tensor network needs at least 2 widths")
    return fully_connected_tensor(spec["widths"])


def _layer_shapes(model: Model) -> list[tuple[int, ...]]:
    """The shape each layer must be given in: (d_out, d_in) for dense layers, (p,) otherwise."""
    if isinstance(model, LinearTensorNetwork):
        return [(k,) for k in model.sizes]
    return [layer.shape if isinstance(layer, Dense) else (layer.n_params,) for layer in model.layers]


def _layers(spec: Mapping[str, Any], model: Model, where: str, symbols: Mapping[str, sympy.Symbol] | None = None
            ) -> list[list[Any]]:
    """Per-layer parsed entries, shapes checked against the model; matrices of dense layers flattened row-major."""
    layers = spec["layers"]
    shapes = _layer_shapes(model)
    if len(layers) != len(shapes):
        raise ConstructionError(f"{where}.layers: expected {len(shapes)} layers for this architecture, "
                                f"got {len(layers)}")
    parsed = []
    for index, (values, shape) in enumerate(zip(layers, shapes)):
        at = f"{where}.layers[{index}]"
        if len(shape) == 2:
            got = _shape_text(values)
            if got != f"a {shape[0]}×{shape[1]} matrix":
                got = got.removeprefix("a ").removesuffix(" matrix") if got.endswith(" matrix") else got
                raise ConstructionError(f"{at}: expected a {shape[0]}×{shape[1]} matrix, got {got}")
            parsed.append([v for row in _matrix(values, at, symbols) for v in row])
        else:
            if any(isinstance(v, list) for v in values) or len(values) != shape[0]:
                raise ConstructionError(f"{at}: expected a vector of length {shape[0]}, got {_shape_text(values)}")
            parsed.append(_vector(values, at, symbols))
    return parsed


def _biases(spec: Mapping[str, Any], model: Any, where: str, symbols: Mapping[str, sympy.Symbol] | None = None
            ) -> list[list[Any]]:
    """Per-layer bias vectors of a network with biases (``biases = [b_1, …, b_L]``)."""
    lengths = [layer.shape[0] for layer in model.layers]
    if "biases" not in spec:
        raise ConstructionError(f"{where}: missing key 'biases' (one vector per layer; the architecture has "
                                "bias = true)")
    given = spec["biases"]
    if len(given) != len(lengths):
        raise ConstructionError(f"{where}.biases: expected {len(lengths)} bias vectors, got {len(given)}")
    out = []
    for index, (values, length) in enumerate(zip(given, lengths)):
        if any(isinstance(v, list) for v in values) or len(values) != length:
            raise ConstructionError(f"{where}.biases[{index}]: expected a vector of length {length}, got "
                                    f"{_shape_text(values)}")
        out.append(_vector(values, f"{where}.biases[{index}]", symbols))
    return out


def _flat_parameters(spec: Mapping[str, Any], model: Any, where: str) -> list[Any]:
    """θ: per layer the weights (row-major), then the layer's biases when the network has them."""
    layers = _layers(spec, model, where)
    if not isinstance(model, BiasedNetwork):
        if "biases" in spec:
            raise ConstructionError(f"{where}.biases: the architecture has no biases (set bias = true)")
        return [v for layer in layers for v in layer]
    biases = _biases(spec, model, where)
    return [v for layer, bias in zip(layers, biases) for v in (*layer, *bias)]


# -- data -----------------------------------------------------------------------------------------------------
def _data(spec: Mapping[str, Any], loss: str, model: Model) -> tuple[list[list[Any]], list[Any]]:
    inputs = _matrix(spec["inputs"], "data.inputs")
    if len(inputs[0]) != model.d_in:
        raise ConstructionError(f"data.inputs: the network takes inputs of dimension {model.d_in} but the rows "
                                f"have {len(inputs[0])} entries")
    n = len(inputs)
    if loss == "square":
        if "labels" in spec:
            raise ConstructionError("data.labels: the square loss fits 'targets', not labels")
        if "targets" not in spec:
            raise ConstructionError("data: missing key 'targets' (one row per sample, for the square loss)")
        targets = _matrix(spec["targets"], "data.targets")
        if len(targets) != n or len(targets[0]) != model.d_out:
            raise ConstructionError(f"data.targets: expected a {n}×{model.d_out} matrix (samples × outputs), "
                                    f"got {len(targets)}×{len(targets[0])}")
        return inputs, targets
    if "targets" in spec:
        raise ConstructionError(f"data.targets: the {loss} loss needs 'labels' (±1), not targets")
    if "labels" not in spec:
        raise ConstructionError(f"data: missing key 'labels' (±1 per sample, for the {loss} loss)")
    labels = _vector(spec["labels"], "data.labels")
    if len(labels) != n:
        raise ConstructionError(f"data.labels: expected {n} labels (one per row of data.inputs), got {len(labels)}")
    if model.d_out != 1:  # multi-class: class indices 0..k−1
        k = model.d_out
        for i, label in enumerate(labels):
            if not (isinstance(label, sympy.Integer) and 0 <= label < k):
                raise ConstructionError(f"data.labels[{i}]: with {k} outputs the labels are class indices 0..{k - 1}, "
                                        f"got {spec['labels'][i]!r}")
        return inputs, [int(label) for label in labels]
    for i, label in enumerate(labels):
        if float(label) not in (1.0, -1.0):
            raise ConstructionError(f"data.labels[{i}]: labels must be +1 or -1, got {spec['labels'][i]!r}")
    return inputs, [sympy.Integer(int(float(label))) for label in labels]


# -- properties ----------------------------------------------------------------------------------------------
def _positive(value: Any, where: str) -> Any:
    number = parse_number(value, where)
    if not float(number) > 0:
        raise ConstructionError(f"{where}: must be positive, got {value!r}")
    return number


def _is_linear(model: Any) -> bool:
    return isinstance(model, LinearTensorNetwork) or model.activation == "linear"


def _direction(value: Any, where: str, model: Any, classes: int, loss: str) -> Any:
    """'l2_max_margin' / 'l1_max_margin', or a given vector (scalar output) / matrix (d_out × d_in), parsed."""
    if isinstance(value, str):
        if value not in DIRECTIONS:
            raise ConstructionError(f"{where}: {value!r} is not one of {', '.join(map(repr, DIRECTIONS))}, "
                                    "nor a vector")
        if loss == "square":
            raise ConstructionError(f"{where}: the {value} direction is of labelled data; it needs the exponential "
                                    "or logistic loss")
        if value == "l1_max_margin" and classes:
            raise ConstructionError(f"{where}: the ℓ1 max-margin direction is for scalar outputs; multi-class "
                                    "outputs have the ℓ2 (Frobenius) one, 'l2_max_margin'")
        return value
    if not isinstance(value, list) or not value:
        raise ConstructionError(f"{where}: expected a vector, a matrix, 'l2_max_margin' or 'l1_max_margin'")
    if model.d_out == 1:
        if any(isinstance(v, list) for v in value) or len(value) != model.d_in:
            raise ConstructionError(f"{where}: expected a vector of length {model.d_in} (the predictor's input "
                                    f"dimension), got {_shape_text(value)}")
        vector = _vector(value, where)
        rows = [vector]
    else:
        got = _shape_text(value)
        if got != f"a {model.d_out}×{model.d_in} matrix":
            raise ConstructionError(f"{where}: expected a {model.d_out}×{model.d_in} matrix (outputs × inputs), got "
                                    f"{got.removeprefix('a ')}")
        rows = _matrix(value, where)
    entries = [v for row in rows for v in row]
    if all(float(v) == 0 for v in entries):
        raise ConstructionError(f"{where}: the zero vector has no direction")
    return rows


def _property(spec: Mapping[str, Any], index: int, loss: str, model: Model, has_initialization: bool,
              classes: int = 0) -> PropertySpec:
    where = f"properties[{index}]"
    check = spec["check"]
    biased = isinstance(model, BiasedNetwork)
    if check in MARGIN_ONLY and loss == "square":
        raise ConstructionError(f"{where}: check {check!r} is about the max-margin problem and needs the "
                                "exponential or logistic loss")
    if check in HOMOGENEOUS_ONLY and biased:
        raise ConstructionError(f"{where}: check {check!r} is about the max-margin problem of a homogeneous "
                                "network; a network with biases is not homogeneous (feasible, rank, stable_rank, "
                                "aligned, predictor_direction and gf_limit apply)")
    if check in MULTICLASS_UNSUPPORTED and classes:
        raise ConstructionError(f"{where}: check {check!r} is for scalar outputs; with {classes} classes the checker "
                                "supports feasible, kkt, gf_limit, rank, stable_rank, aligned and predictor_direction")
    limit = spec.get("limit", "theta") if check == "gf_limit" else None
    if check == "aligned" or limit == "aligned":
        if isinstance(model, LinearTensorNetwork):
            raise ConstructionError(f"{where}: alignment needs weight matrices; tensor-network layers are vectors")
        if len(model.layers) < 2:
            raise ConstructionError(f"{where}: alignment needs at least two layers")
    if check == "predictor_direction" or limit == "predictor_direction":
        if not _is_linear(model):
            raise ConstructionError(f"{where}: an end-to-end linear predictor W_L⋯W_1 exists for linear networks "
                                    "only (activation 'linear' or a tensor network)")
        if "direction" not in spec:
            raise ConstructionError(f"{where}: predictor_direction needs 'direction' (a vector, 'l2_max_margin' or "
                                    "'l1_max_margin')")
    if "direction" in spec and not (check == "predictor_direction" or limit == "predictor_direction"):
        raise ConstructionError(f"{where}.direction: only for predictor_direction (or gf_limit with limit = "
                                "'predictor_direction')")
    options: dict[str, Any] = {}
    for key in ("tolerance", "time", "norm"):
        if key in spec:
            options[key] = _positive(spec[key], f"{where}.{key}")
    if "radii" in spec:
        radii = [_positive(r, f"{where}.radii[{j}]") for j, r in enumerate(spec["radii"])]
        if any(float(a) <= float(b) for a, b in zip(radii, radii[1:])):
            raise ConstructionError(f"{where}.radii: list the radii in decreasing order")
        options["radii"] = radii
    for key in ("starts", "clock", "scope"):
        if key in spec:
            options[key] = spec[key]
    if "direction" in spec:
        options["direction"] = _direction(spec["direction"], f"{where}.direction", model, classes, loss)
    if check == "gf_limit":
        options["limit"] = limit
        if classes and loss != "exponential":
            raise ConstructionError(f"{where}: gf_limit on {classes} classes integrates the multi-class exponential "
                                    "loss Σ_i Σ_(j≠y_i) e^(−(f_(y_i) − f_j)); set loss = \"exponential\"")
    if "layer" in spec:
        depth = len(model.sizes)
        if check == "gf_limit" and limit != "aligned":
            raise ConstructionError(f"{where}.layer: for gf_limit only with limit = 'aligned' (the pair to check)")
        if check == "aligned" or limit == "aligned":
            depth -= 1  # the pair (layer, layer + 1)
        if not 1 <= spec["layer"] <= depth:
            what = f"adjacent pairs (layer, layer + 1) for layer 1..{depth}" if "aligned" in (check, limit) else \
                f"layers 1..{depth}"
            raise ConstructionError(f"{where}.layer: the network has {what}, got {spec['layer']}")
        if check in ("rank", "stable_rank") and isinstance(model, LinearTensorNetwork):
            raise ConstructionError(f"{where}: {check} needs weight matrices; tensor-network layers are vectors")
        options["layer"] = spec["layer"]
    if check == "rank":
        value = parse_number(spec["value"], f"{where}.value")
        if not (isinstance(value, sympy.Integer) and value >= 0):
            raise ConstructionError(f"{where}.value: a rank is a non-negative integer, got {spec['value']!r}")
        options["value"] = int(value)
    if check == "stable_rank":
        given = [key for key in ("value", "at_most") if key in spec]
        if len(given) != 1:
            raise ConstructionError(f"{where}: stable_rank needs exactly one of 'value' and 'at_most'")
        options[given[0]] = _positive(spec[given[0]], f"{where}.{given[0]}")
    if check == "gf_limit":
        if not has_initialization:
            raise ConstructionError(f"{where}: gf_limit needs an [initialization] θ(0)")
        if "norm" in spec and loss == "square":
            raise ConstructionError(f"{where}.norm: a norm horizon is for margin losses; use 'time'")
    if "witness" in spec:
        witness = spec["witness"]
        curve = _layers(witness, model, f"{where}.witness", {"eps": EPS})
        options["witness"] = [v for layer in curve for v in layer]
        eps_max = parse_number(witness["eps_max"], f"{where}.witness.eps_max")
        if not (isinstance(eps_max, sympy.Rational) and eps_max > 0):
            raise ConstructionError(f"{where}.witness.eps_max: must be a positive rational number such as \"1/4\", "
                                    f"got {witness['eps_max']!r}")
        options["eps_max"] = eps_max
    return PropertySpec(check, spec.get("expect", "holds"), options, where, spec.get("note", ""))


# -- entry point ---------------------------------------------------------------------------------------------
def _outputs_in_range(model: Any, theta: np.ndarray, X: np.ndarray, where: str) -> None:
    """Refuse parameters whose network outputs overflow float64 (each number is in range, their products not)."""
    with np.errstate(all="ignore"):
        outputs = np.asarray(model.forward(B.to_float(theta), B.to_float(X)), dtype=np.float64)
    if not np.all(np.isfinite(outputs)) or np.max(np.abs(outputs), initial=0.0) > _MAX_MAGNITUDE:
        raise ConstructionError(f"{where}: the network's outputs on data.inputs are too large for the checker "
                                f"(beyond 1e150 in magnitude; rescale the data or the parameters)")


def load_construction(source: str | Path | Mapping[str, Any]) -> Construction:
    """Read, validate and build a construction from a .toml/.json path or an already parsed document."""
    if isinstance(source, Mapping):
        document, origin = dict(source), "<dict>"
    else:
        path = Path(source)
        document, origin = _read(path), str(path)
    document = _mark_long_integers(document)
    _validate(document, origin)
    loss = document["loss"]
    exact = not (_has_float(document["data"]["inputs"]) or _has_float(document["data"].get("labels", []))
                 or _has_float(document["data"].get("targets", [])) or _has_float(document["parameters"]["layers"]))
    model, float_model, architecture = _architecture(document["architecture"])
    exact = exact and not _has_float(document["parameters"].get("biases", []))
    inputs, outputs = _data(document["data"], loss, model)
    layers = _layers(document["parameters"], model, "parameters")
    flat = _flat_parameters(document["parameters"], model, "parameters")
    theta0 = None
    if "initialization" in document:
        theta0 = _array(_flat_parameters(document["initialization"], model, "initialization"), exact=False)
    classes = model.d_out if loss != "square" and model.d_out > 1 else 0
    properties = tuple(_property(spec, i, loss, model, theta0 is not None, classes)
                       for i, spec in enumerate(document["properties"]))
    shapes = _layer_shapes(model)
    theta = _array(flat, exact)
    X = _array(inputs, exact)
    network, labels = model, np.array(outputs, dtype=object if exact else np.float64)
    Y = _array(outputs, exact)
    if classes:  # the scalar engines run on the pairs (i, j ≠ y_i); `network` keeps the network itself
        float_network = float_model
        model = PairMargins(network, E.to_exact(X), outputs)
        float_model = PairMargins(float_network, B.to_float(X), outputs)
        X = np.arange(len(model.pairs)).reshape(-1, 1).astype(object if exact else np.float64)
        if exact:
            X = np.vectorize(sympy.Integer, otypes=[object])(X)
        Y = _array([1] * len(model.pairs), exact)
        architecture += f", {classes} classes (multi-class margin min_i f_(y_i)(x_i) − max_(j≠y_i) f_j(x_i))"
    _outputs_in_range(float_model, theta, X, "parameters")
    if theta0 is not None:
        _outputs_in_range(float_model, theta0, X, "initialization")
    return Construction(
        origin=origin, title=document.get("title", Path(origin).stem if origin != "<dict>" else "construction"),
        source=document.get("source", ""), description=document.get("description", ""),
        model=model, float_model=float_model, architecture=architecture, loss=loss, exact=exact,
        family=_family(document["architecture"]),
        X=X, Y=Y, theta=theta,
        layers=tuple(_array(layer, exact).reshape(shape) for layer, shape in zip(layers, shapes)),
        theta0=theta0, properties=properties, network=network, inputs=_array(inputs, exact),
        labels=labels, classes=classes, biased=isinstance(network, BiasedNetwork))
