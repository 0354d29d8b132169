"""`verify check`: the shipped constructions get their stated verdicts, wrong ones are rejected for the right
reason, exact and float inputs agree, bad input is reported in one line naming where, and no input crashes it."""

from __future__ import annotations

import contextlib
import copy
import json
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.checker import EXAMPLES_DIR, CheckReport, check_construction
from verify.claim import EvidenceKind, Verdict
from verify.cli import main
from verify.construction import ConstructionError, load_construction, parse_number, schema

EXAMPLES = EXAMPLES_DIR
PAPER_EXAMPLES = sorted(p.name for p in EXAMPLES.iterdir() if not p.name.startswith("wrong_"))
C, F, R, I = Verdict.CERTIFIED, Verdict.CONFIRMED, Verdict.REFUTED, Verdict.INCONCLUSIVE  # noqa: E741 (verdict letters)

# The verdicts each paper construction must get, in file order (the files state the same through `expect`).
VERDICTS = {
    "align_appendix_a.toml": [F, R, R],
    "margin_lemC6_delta.toml": [C, C, C, R, C, R, C, F],
    "margin_rem3_1_delta.toml": [C, C, R, R, F],
    "margin_thm3_2.toml": [C, C, R, R, F],
    "margin_thm4_1_linear.toml": [C, C, R, R, C, C, F],
    "margin_thm4_1_relu.toml": [C, R, R, F],
    "margin_thm4_2.toml": [C, C, R, R, F],
    "margin_thm4_3_lemC6.toml": [C, C, C, R, C, R, C, F],
    "margin_thm4_4_float.json": [C, F, R, F, F],
    "margin_thm4_4_linear.toml": [C, C, R, R, R, C, C, F],
    "margin_thm4_4_relu.toml": [C, C, R, R, C, R, C, F],
    "margin_thm5_1_depth10.toml": [C, C, R, R, F, C, F],
    "margin_thm5_1_depth3.toml": [C, C, R, R, R, C, C, F],
    "margin_thm5_1_depth4.toml": [C, C, R, R, F, C, F],
    "margin_thm5_1_depth5.toml": [C, C, R, R, C, C, F],
    "margin_thm5_3.toml": [C, R, C],
    "rank_thm1.toml": [C, C, C, C, F],
    "rank_thm2_radius.toml": [C, C, F],
    # issue 14: leaky ReLU, alignment, predictor directions, depth > 10
    "leaky_relu_kkt.toml": [C, C, C, C],
    "deep_linear_aligned_depth12.toml": [C, C, C, C, C, C, R],
    "multiclass_linear_kkt.toml": [C, C, C, C],
    "bias_relu_feasible.toml": [C, C],
    "overlapping_conv_kkt.toml": [C, C, C, C],
    "gf_limit_aligned_svm.toml": [F, F],
}
# Wrong on purpose: (property index, verdict it gets instead of the claimed one, words of the reason).
WRONG = {
    "wrong_infeasible.toml": [(0, R, "margin 9/10 < 1"), (1, R, "infeasible")],
    "wrong_not_kkt.toml": [(1, R, "separating direction")],
    "wrong_local_optimum.toml": [(1, C, "second-order sufficient"), (2, R, "angle")],
    "wrong_witness_curve.toml": [(0, I, "the margin of sample 1, 1 - eps, is < 1 for every ε")],
    "wrong_leaky_relu_kkt.toml": [(1, R, "no multipliers λ ≥ 0 make θ stationary")],
    "wrong_aligned.toml": [(0, R, "W_11 and W_12 are rank one but not aligned")],
    "wrong_predictor_direction.toml": [(0, R, "below the optimum 1/‖β*‖₁ = 2")],
    "wrong_multiclass.toml": [(1, R, "no multipliers λ ≥ 0 make θ stationary")],
    "wrong_bias.toml": [(0, R, "sample 1 has margin 0 < 1")],
    "wrong_overlapping_conv.toml": [(1, R, "no multipliers"), (2, R, "optimum 1/18 < ‖u‖² = 1/9")],
    "wrong_gf_limit.toml": [(0, R, "relative gap between the ℓ1 margin of θ(t)'s predictor and the optimum")],
}

_reports: dict[str, CheckReport] = {}


def report(name: str) -> CheckReport:
    if name not in _reports:
        _reports[name] = check_construction(EXAMPLES / name)
    return _reports[name]


def test_every_shipped_example_is_listed():
    assert set(VERDICTS) | set(WRONG) == {p.name for p in EXAMPLES.iterdir()}
    assert set(PAPER_EXAMPLES) == set(VERDICTS)


@pytest.mark.parametrize("name", PAPER_EXAMPLES)
def test_paper_constructions_get_their_stated_verdicts(name):
    result = report(name)
    assert [r.verdict for r in result.results] == VERDICTS[name], [(r.name, r.verdict, r.detail)
                                                                   for r in result.results]
    assert result.ok, [r.detail for r in result.results if not r.ok]
    for r in result.results:
        assert "\n" not in r.detail
        if r.verdict in (C, R) and result.exact and r.name != "gf_limit":
            assert r.evidence is EvidenceKind.EXACT, (r.name, r.evidence)
        if r.verdict is F:
            assert r.evidence is EvidenceKind.NUMERIC


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_constructions_are_rejected_for_the_right_reason(name):
    result = report(name)
    assert not result.ok
    for index, verdict, reason in WRONG[name]:
        r = result.results[index]
        assert not r.ok and r.verdict is verdict and reason in r.detail, (r.verdict, r.detail)


def test_evidence_reported_for_the_headline_properties():
    kkt_point = report("margin_thm4_3_lemC6.toml").results[1]
    assert kkt_point.figures["multipliers"] == "(2, 2, 1)" and kkt_point.figures["stationarity_residual"] == 0
    curve = report("margin_thm3_2.toml").results[2]
    assert curve.figures["curve_improvement"] == "eps*(16 - 17*eps)/4"
    assert curve.figures["direction"] == "(0, 0, -0.707107, 0, 0, 0.707107)"
    search = report("margin_thm4_1_relu.toml").results[2]
    assert search.figures["radii"] == "0.1, 0.01, 0.001" and "direction" in search.figures
    flow = report("margin_thm3_2.toml").results[4]
    assert flow.figures["angle"] < flow.figures["angle_at_a_third"] < 0.01
    assert report("rank_thm1.toml").results[1].figures["rank"] == 1
    global_value = report("margin_thm4_1_linear.toml").results[3]
    assert global_value.figures["optimum"] == 1 and global_value.figures["squared_norm"] == 2


def as_floats(document: dict[str, Any]) -> dict[str, Any]:
    """The same construction with every number of its data and parameters written as a float."""
    def floats(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: floats(v) for k, v in value.items()}
        if isinstance(value, list):
            return [floats(v) for v in value]
        return float(parse_number(value, "test"))

    return {k: floats(v) if k in ("data", "parameters") else copy.deepcopy(v) for k, v in document.items()}


def test_exact_and_float_inputs_agree():
    document = tomllib.loads((EXAMPLES / "margin_thm3_2.toml").read_text())
    document["properties"] = document["properties"][:3]  # feasible, kkt, local optimum with the curve
    exact, floating = check_construction(document), check_construction(as_floats(document))
    assert exact.exact and not floating.exact
    for e, f in zip(exact.results, floating.results, strict=True):
        assert e.ok and f.ok, (e.detail, f.detail)
        assert e.evidence is EvidenceKind.EXACT and f.evidence in (EvidenceKind.INTERVAL, EvidenceKind.NUMERIC)
    assert [f.verdict for f in floating.results] == [C, F, R]  # KKT of float input is numeric
    irrational = report("margin_thm4_4_float.json").results[0]
    assert irrational.evidence is EvidenceKind.INTERVAL and irrational.verdict is C


def test_float_ranks_are_exact_on_the_binary_values_when_they_can_be():
    document = tomllib.loads((EXAMPLES / "rank_thm1.toml").read_text())
    floating = check_construction(as_floats(document))
    assert [(r.verdict, r.evidence) for r in floating.results[:4]] == [
        (F, EvidenceKind.NUMERIC), (C, EvidenceKind.INTERVAL), (C, EvidenceKind.INTERVAL), (C, EvidenceKind.INTERVAL)]
    document["parameters"]["layers"][0][1] = [-0.9846153846153847, 0.12307692307692309 + 1e-12]  # −w1, perturbed
    document["properties"] = [{"check": "rank", "layer": 1, "value": 1}, {"check": "stable_rank", "layer": 1,
                                                                           "at_most": "1.01"}]
    perturbed = check_construction(as_floats(document))
    assert [(r.verdict, r.evidence) for r in perturbed.results] == [(F, EvidenceKind.NUMERIC),
                                                                    (C, EvidenceKind.INTERVAL)]
    assert "numerical rank 1" in perturbed.results[0].detail


def test_linear_tensor_network_svm_point_is_a_certified_global_optimum():
    """f = xᵀW1 w2 (paper 002's encoding of a depth-2 fully-connected linear network) on data whose SVM
    solution is w* = (4, 0): W1 = 2 e1e1ᵀ, w2 = 2 e1 attains 2‖w*‖ = 8."""
    document = {
        "architecture": {"type": "tensor", "encoding": "fully_connected", "widths": [2, 2]},
        "loss": "logistic",
        "data": {"inputs": [["1/4", "1/5"], ["1/4", "-1/10"], ["2/5", "1/20"], ["7/20", "-1/4"]],
                 "labels": [1, 1, 1, 1]},
        "parameters": {"layers": [[2, 0, 0, 0], [2, 0]]},
        "properties": [{"check": "kkt"}, {"check": "global_optimum"}, {"check": "local_optimum"},
                       {"check": "layer_optimum", "layer": 1}],
    }
    result = check_construction(document)
    assert [r.verdict for r in result.results] == [C, C, C, C], [r.detail for r in result.results]
    assert "2·‖u_svm‖^(2/2) = 8" in result.results[1].detail
    document["parameters"]["layers"] = [[2, 0, 0, 0], [0, 2]]  # infeasible: the product is 0
    assert check_construction(document).results[1].verdict is R


# -- bad input -------------------------------------------------------------------------------------------------
BASE = tomllib.loads((EXAMPLES / "margin_thm3_2.toml").read_text())


def mutated(change) -> dict[str, Any]:
    document = copy.deepcopy(BASE)
    change(document)
    return document


BAD = [
    (lambda d: d["parameters"]["layers"].__setitem__(1, [[2, 0], [0, 0]]),
     "parameters.layers[1]: expected a 1×2 matrix, got 2×2"),
    (lambda d: d["data"].__setitem__("inputs", [[1, 2, 3], [4, 5, 6]]),
     "data.inputs: the network takes inputs of dimension 2 but the rows have 3 entries"),
    (lambda d: d["architecture"].__setitem__("biases", True), "architecture.biases: write bias = true"),
    (lambda d: d["architecture"].__setitem__("activation", "tanh"),
     "architecture.activation: activation 'tanh' is not positively homogeneous"),
    (lambda d: d["architecture"].__setitem__("activation", "leaky_relu"),
     "architecture: activation 'leaky_relu' needs negative_slope = a (0 < a < 1)"),
    (lambda d: d["architecture"].__setitem__("activation", "prelu"),
     "architecture.activation: activation 'prelu' is positively homogeneous, but not supported yet"),
    (lambda d: d["architecture"].__setitem__("activation", "LeakyReLU"),
     "architecture.activation: activation 'LeakyReLU': write 'leaky_relu' (with negative_slope = a, 0 < a < 1)"),
    (lambda d: d["architecture"].update(activation="leaky_relu", negative_slope=1),
     "architecture.negative_slope: a must lie in (0, 1) (a = 0 is ReLU), got 1"),
    (lambda d: d["architecture"].__setitem__("negative_slope", "1/10"),
     "architecture.negative_slope: only meaningful for activation 'leaky_relu'"),
    (lambda d: d["architecture"].__setitem__("activation", "cube"),
     "architecture.activation: activation 'cube' is not supported; the checker supports 'relu', 'leaky_relu' and "
     "'linear'"),
    (lambda d: d["data"]["inputs"][0].__setitem__(1, math.nan), "data.inputs[0][1]: nan is not a finite number"),
    (lambda d: d["data"]["inputs"][0].__setitem__(1, "1/4 +"), "data.inputs[0][1]: cannot parse '1/4 +'"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "x + 1"), "data.inputs[1][0]: unknown name 'x'"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "eps"), "data.inputs[1][0]: unknown name 'eps'"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "__import__('os')"), "data.inputs[1][0]:"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "10**10**10"), "exponents must be constant numbers"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "2^100"), "exponent larger than 64"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "1/0"), "data.inputs[1][0]: '1/0' is not a finite number"),
    (lambda d: d["data"]["inputs"][1].__setitem__(0, "sqrt(-1)"), "is not a real number"),
    (lambda d: d["data"]["labels"].__setitem__(0, 2), "data.labels[0]: labels must be +1 or -1"),
    (lambda d: d["data"].__setitem__("inputs", "abc"), "data.inputs: expected a list, got a string"),
    (lambda d: d.__setitem__("colour", "red"), "top level: unknown key 'colour'"),
    (lambda d: d.pop("loss"), "top level: missing key 'loss'"),
    (lambda d: d["properties"][1].__setitem__("radii", [1]),
     "properties[1]: key 'radii' is not an option of check 'kkt'"),
    (lambda d: d["properties"][2].__setitem__("radii", ["1/100", "1/10"]),
     "properties[2].radii: list the radii in decreasing order"),
    (lambda d: d.pop("initialization"), "properties[4]: gf_limit needs an [initialization]"),
    (lambda d: d["properties"][2]["witness"].__setitem__("eps_max", "sqrt(2)"),
     "properties[2].witness.eps_max: must be a positive rational"),
    (lambda d: d["properties"][2]["witness"]["layers"][0][1].__setitem__(0, "t"),
     "properties[2].witness.layers[0][1][0]: unknown name 't'"),
    (lambda d: d.__setitem__("loss", "square"), "data.labels: the square loss fits 'targets'"),
    (lambda d: d["architecture"].__setitem__("depth", 3), "architecture: key 'depth' is not used by type"),
    (lambda d: d["data"].__setitem__("inputs", [[1, 2]] * 300), "data.inputs: needs at most 256 entries"),
    (lambda d: d["parameters"].__setitem__("layers", []), "parameters.layers: needs at least 1 entries"),
    # issue 14: leaky ReLU, biases, multi-class labels, strided convolutions, aligned, predictor_direction, limits
    (lambda d: d["architecture"].__setitem__("bias", True),
     "parameters: missing key 'biases' (one vector per layer; the architecture has bias = true)"),
    (lambda d: d["parameters"].__setitem__("biases", [[0, 0], [0]]),
     "parameters.biases: the architecture has no biases (set bias = true)"),
    (lambda d: (d["architecture"].__setitem__("bias", True), d["parameters"].__setitem__("biases", [[0], [0]])),
     "parameters.biases[0]: expected a vector of length 2, got a vector of length 1"),
    (lambda d: (d["architecture"].__setitem__("bias", True), d["parameters"].__setitem__("biases", [[0, 0], [0]]),
                d["initialization"].__setitem__("biases", [[0, 0], [0]])),
     "properties[1]: check 'kkt' is about the max-margin problem of a homogeneous network; a network with biases is "
     "not homogeneous (feasible, rank, stable_rank, aligned, predictor_direction and gf_limit apply)"),
    (lambda d: d.__setitem__("architecture", {"type": "diagonal", "input_dim": 2, "depth": 2, "activation": "relu",
                                              "bias": True}),
     "architecture.bias: biases are supported for fully-connected networks only, not type 'diagonal'"),
    (lambda d: (d["architecture"].__setitem__("widths", [2, 2, 3]), d["data"].__setitem__("labels", [-1, 1])),
     "data.labels[0]: with 3 outputs the labels are class indices 0..2, got -1"),
    (lambda d: (d["architecture"].__setitem__("widths", [2, 2, 3]), d["data"].__setitem__("labels", [0, 3])),
     "data.labels[1]: with 3 outputs the labels are class indices 0..2, got 3"),
    (lambda d: (d["architecture"].__setitem__("widths", [2, 2, 3]), d["data"].__setitem__("labels", [0, 1]),
                d["parameters"]["layers"].__setitem__(1, [[2, 0], [0, 0], [0, 0]]), d.pop("initialization")),
     "properties[2]: check 'local_optimum' is for scalar outputs; with 3 classes the checker supports"),
    (lambda d: d.__setitem__("architecture", {"type": "convolutional", "layout": "strided", "input_dim": 2,
                                              "kernel": 3, "stride": 1, "activation": "relu"}),
     "architecture.kernel: the kernel (3) is longer than input_dim = 2"),
    (lambda d: d.__setitem__("architecture", {"type": "convolutional", "layout": "strided", "input_dim": 2,
                                              "kernel": 1, "activation": "relu"}),
     "architecture: missing key 'stride'"),
    (lambda d: d["properties"].__setitem__(0, {"check": "aligned", "layer": 2}),
     "properties[0].layer: the network has adjacent pairs (layer, layer + 1) for layer 1..1, got 2"),
    (lambda d: d["properties"].__setitem__(0, {"check": "aligned", "radii": [1]}),
     "properties[0]: key 'radii' is not an option of check 'aligned'"),
    (lambda d: d["properties"].__setitem__(0, {"check": "predictor_direction", "direction": "l2_max_margin"}),
     "properties[0]: an end-to-end linear predictor W_L⋯W_1 exists for linear networks only"),
    (lambda d: (d["architecture"].__setitem__("activation", "linear"),
                d["properties"].__setitem__(0, {"check": "predictor_direction"})),
     "properties[0]: missing key 'direction'"),
    (lambda d: (d["architecture"].__setitem__("activation", "linear"),
                d["properties"].__setitem__(0, {"check": "predictor_direction", "direction": "svm"})),
     "properties[0].direction: 'svm' is not one of 'l2_max_margin', 'l1_max_margin', nor a vector"),
    (lambda d: (d["architecture"].__setitem__("activation", "linear"),
                d["properties"].__setitem__(0, {"check": "predictor_direction", "direction": [1, 2, 3]})),
     "properties[0].direction: expected a vector of length 2 (the predictor's input dimension), got a vector of "
     "length 3"),
    (lambda d: (d["architecture"].__setitem__("activation", "linear"),
                d["properties"].__setitem__(0, {"check": "predictor_direction", "direction": [0, 0]})),
     "properties[0].direction: the zero vector has no direction"),
    (lambda d: d["properties"][4].__setitem__("limit", "balanced"),
     "properties[4].limit: 'balanced' is not one of 'theta', 'aligned', 'predictor_direction'"),
    (lambda d: d["properties"][4].__setitem__("limit", "predictor_direction"),
     "properties[4]: an end-to-end linear predictor W_L⋯W_1 exists for linear networks only"),
    (lambda d: d["properties"][4].__setitem__("layer", 1),
     "properties[4].layer: for gf_limit only with limit = 'aligned'"),
    (lambda d: d["properties"][0].__setitem__("direction", [1, 0]),
     "properties[0]: key 'direction' is not an option of check 'feasible'"),
    (lambda d: d["properties"][4].__setitem__("direction", [1, 0]),
     "properties[4].direction: only for predictor_direction (or gf_limit with limit = 'predictor_direction')"),
]


@pytest.mark.parametrize("change, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_is_one_line_naming_where(tmp_path, capsys, change, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(mutated(change)))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("name, text, message", [
    ("bad.toml", "loss = \n", "invalid TOML"),
    ("bad.json", "{\"loss\": ", "invalid JSON"),
    ("bad.yaml", "loss: square", "expected a .toml or .json file"),
    ("missing.toml", None, "cannot read the file"),
])
def test_unreadable_files(tmp_path, capsys, name, text, message):
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and name in err


def test_cli_exit_codes_and_json(capsys):
    assert main(["check", str(EXAMPLES / "rank_thm1.toml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["arithmetic"] == "exact" and len(data["properties"]) == 5
    assert main(["check", str(EXAMPLES / "wrong_not_kkt.toml")]) == 1
    assert "1 not" in capsys.readouterr().out


def test_schema_is_published_and_matches_the_loader():
    published = json.loads((Path(__file__).resolve().parents[1] / "verify" / "schema" /
                            "construction.schema.json").read_text())
    assert published == schema()
    assert set(published["$defs"]["property"]["properties"]["check"]["enum"]) == {
        "feasible", "kkt", "local_optimum", "global_optimum", "gf_limit", "rank", "stable_rank", "layer_optimum",
        "aligned", "predictor_direction"}
    with pytest.raises(ConstructionError, match="properties"):
        load_construction({k: v for k, v in BASE.items() if k != "properties"})


# -- fuzzing -----------------------------------------------------------------------------------------------------
def cheap_base(name: str) -> dict[str, Any]:
    """A shipped example with only the fast checks kept (the fuzz exercises loading, not the searches)."""
    path = EXAMPLES / name
    document = tomllib.loads(path.read_text()) if path.suffix == ".toml" else json.loads(path.read_text())
    kept = [p for p in document["properties"] if p["check"] in ("feasible", "kkt", "rank", "stable_rank")]
    document["properties"] = kept or [{"check": "feasible"}]
    return document


GARBAGE = st.sampled_from([
    None, True, "", "abc", "1/0", "sqrt(-1)", "x**2", "__import__('os').system('true')", "1e999", "((((", "2^^2",
    "2**2**2**2**2**2", "root(2, 0)", "eps", "lambda: 1", "[1, 2]", math.nan, math.inf, -math.inf, 10**100, -1,
    0, 0.5, 1e308, [], [[]], [1] * 300, [[1, 2]] * 300, {"a": 1}, [None], [[math.nan]], "sqrt(2)", "-1/3",
])


def paths(document: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            out += paths(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document[:4]):
            out += paths(value, prefix + (index,))
    return out


def apply(document: Any, path: tuple, action: str, value: Any) -> Any:
    if not path:
        return value
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if action == "drop":
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return document


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(VERDICTS) + sorted(WRONG)), data=st.data())
def test_fuzz_mutated_examples_never_crash(tmp_path_factory, name, data):
    document = cheap_base(name)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths(document)))
        action = data.draw(st.sampled_from(["drop", "replace"])) if path else "replace"
        document = apply(document, path, action, copy.deepcopy(data.draw(GARBAGE)))
    check_never_crashes(tmp_path_factory.mktemp("fuzz") / "mutated.json", json.dumps(document))


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                               st.sampled_from(["architecture", "loss", "data", "parameters", "properties", "type",
                                                "layers", "inputs", "labels", "check", "widths"]), inner,
                               max_size=4), max_leaves=20)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(document=JSON_VALUES)
def test_fuzz_random_documents_never_crash(tmp_path_factory, document):
    check_never_crashes(tmp_path_factory.mktemp("fuzz") / "random.json", json.dumps(document))


def check_never_crashes(path: Path, text: str) -> None:
    import contextlib
    import io

    path.write_text(text)
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(["check", str(path)])
    assert code in (0, 1, 2), err.getvalue()
    if code == 2:
        assert err.getvalue().count("\n") == 1, err.getvalue()


# -- no evidence, no verdict (issue 12) --------------------------------------------------------------------------
def gf_only(name: str, scale: float = 1.0, **options: Any) -> dict[str, Any]:
    """A shipped example with only its gf_limit property, θ(0) scaled and options added."""
    document = copy.deepcopy(tomllib.loads((EXAMPLES / name).read_text()))
    document["initialization"]["layers"] = [[[scale * float(parse_number(v, "")) for v in row] for row in layer]
                                            for layer in document["initialization"]["layers"]]
    document["properties"] = [{"check": "gf_limit", **options}]
    return document


def test_a_start_beyond_the_stopping_norm_is_inconclusive_not_refuted():
    # θ(0) × 1000 has ‖θ(0)‖ ≈ 934 > norm = 300: the flow would stop before its first step (it used to be
    # "refuted after 0 evaluations")
    result = check_construction(gf_only("margin_thm3_2.toml", 1000, norm=300)).results[0]
    assert result.verdict is I and "start is already beyond the stopping norm" in result.detail, result.detail
    assert "raise `norm`" in result.detail and result.figures["evaluations"] == 0


def test_the_default_stopping_norm_scales_with_the_start():
    # the default stops at 300·max(1, ‖θ(0)‖), so the scaled start runs and gets the true verdict; LSODA gets
    # stuck on this stiff flow (margins ~ 1e5 slide along their tie) and BDF finishes it
    result = check_construction(gf_only("margin_thm3_2.toml", 1000)).results[0]
    assert result.verdict is F, result.detail
    assert result.figures["norm"] == pytest.approx(300 * result.figures["start_norm"])
    assert result.figures["final_norm"] == pytest.approx(result.figures["norm"])
    assert result.figures["angle"] < 0.01 and result.figures["evaluations"] > 0


def test_a_flow_that_never_moves_is_inconclusive():
    # θ(0) = 0 in a ReLU network: ∇L = 0, the arclength clock is undefined at the start
    result = check_construction(gf_only("margin_thm3_2.toml", 0.0)).results[0]
    assert result.verdict is I and "did not move" in result.detail, result.detail


def test_a_square_loss_flow_still_moving_at_its_horizon_is_inconclusive():
    result = check_construction(gf_only("rank_thm1.toml", 0.5, time="1/1000")).results[0]
    assert result.verdict is I and "still moving" in result.detail and "raise `time`" in result.detail, result.detail


def test_searches_and_numeric_optima_without_evidence_decide_nothing():
    from types import SimpleNamespace

    from verify import checker

    assert not checker._Search((), ()).all_certified  # no radius searched: no witness, no refutation
    idle = SimpleNamespace(improved=False, evaluations=0, radius=0.1)
    assert checker._Search((idle,), (None,)).clean_radius is None  # nothing evaluated: no confirmation
    solved = SimpleNamespace(message="numeric")
    # a feasible θ below the numeric optimum means the solver is off: neither refuted nor confirmed
    assert checker._compare_numeric(7.0, 8.0, "f", solved).verdict is I
    assert checker._compare_numeric(8.0, math.nan, "f", solved).verdict is I
    assert checker._compare_numeric(9.0, 8.0, "f", solved).verdict is R
    assert checker._compare_numeric(8.0, 8.0, "f", solved).verdict is F


# -- issue 14: the new architectures and properties beyond their examples ------------------------------------------
def test_aligned_float_input_exact_on_binary_values_or_within_tolerance():
    document = tomllib.loads((EXAMPLES / "deep_linear_aligned_depth12.toml").read_text())
    document["properties"] = [{"check": "aligned"}, {"check": "predictor_direction", "direction": "l2_max_margin"}]
    floating = check_construction(as_floats(document))
    aligned, direction = floating.results  # 3/5, 4/5 are not binary: the floats are aligned only up to rounding
    assert (aligned.verdict, aligned.evidence) == (F, EvidenceKind.NUMERIC), aligned.detail
    assert "largest σ2/σ1" in aligned.detail and direction.verdict in (C, F), direction.detail
    document = as_floats(document)
    document["parameters"]["layers"][-1][0][0] += 1e-6  # W_12 tilted by about 1e-6 rad: not exactly aligned
    document["properties"] = [{"check": "aligned", "tolerance": 1e-5}, {"check": "aligned"}]
    tilted = check_construction(document)
    assert [(r.verdict, r.evidence) for r in tilted.results] == [(F, EvidenceKind.NUMERIC), (R, EvidenceKind.NUMERIC)]


def test_leaky_relu_kink_on_an_active_sample_is_inconclusive_not_decided_by_convention():
    document = tomllib.loads((EXAMPLES / "leaky_relu_kkt.toml").read_text())
    # one neuron off: W1 row 2 = 0 and v2 = 0; the active samples then see a zero pre-activation (a kink)
    document["parameters"]["layers"][0][1] = [0, 0]
    document["parameters"]["layers"][1][0][1] = 0
    document["parameters"]["layers"][0][0] = ["(8/9)**(1/4)/sqrt(2)", "(8/9)**(1/4)/sqrt(2)"]
    document["parameters"]["layers"][1][0][0] = "(8/9)**(1/4)"
    document["properties"] = [{"check": "kkt"}]
    result = check_construction(document).results[0]
    assert result.verdict is I and "Clarke subgradients at kinks of leaky ReLU networks" in result.detail, result.detail


def test_multiclass_gradient_flow_of_the_exponential_loss():
    document = tomllib.loads((EXAMPLES / "multiclass_linear_kkt.toml").read_text())
    document["initialization"] = {"layers": [[[0.1, -0.05], [0.02, 0.08]],
                                             [[0.07, 0.01], [-0.03, 0.09], [0.05, -0.02]]]}
    document["properties"] = [{"check": "gf_limit", "limit": "predictor_direction", "direction": "l2_max_margin"}]
    result = check_construction(document).results[0]
    assert result.verdict is F and result.figures["angle"] < 0.01, result.detail
    document["loss"] = "logistic"
    with pytest.raises(ConstructionError, match="integrates the multi-class exponential loss"):
        load_construction(document)


def test_wrapped_models_have_consistent_gradients():
    import numpy as np

    for name in ("bias_relu_feasible.toml", "multiclass_linear_kkt.toml"):
        c = load_construction(EXAMPLES / name)
        rng = np.random.default_rng(0)
        theta = rng.normal(size=c.model.n_params) + 0.1
        X = np.asarray(c.X, dtype=float)
        J = c.float_model.jacobian(theta, X)
        h = 1e-6
        model = c.float_model
        numeric = np.stack([(model.forward(theta + h * e, X) - model.forward(theta - h * e, X)) / (2 * h)
                            for e in np.eye(len(theta))], axis=-1)
        np.testing.assert_allclose(J, numeric, atol=1e-6)
        G = rng.normal(size=(X.shape[0], c.float_model.d_out))
        np.testing.assert_allclose(c.float_model.vjp(theta, X, G), np.einsum("no,nop->p", G, J), atol=1e-10)


# -- extreme but valid numbers (issue 13): one line naming the field, exit 2, or handled exactly ------------------
_RANGE = "nonzero numbers must have magnitudes between 1e-150 and 1e150"
EXTREME = [
    ("data.inputs[0][1]", 10**4999 + 7, "an integer with 5000 digits is too large"),
    ("parameters.layers[0][0][0]", -(10**4999), "an integer with 5000 digits is too large"),
    ("data.inputs[0][1]", 1e-300, "1e-300 is too small"),
    ("parameters.layers[0][0][0]", 1e-300, "1e-300 is too small"),
    ("data.inputs[0][1]", 5e-324, "5e-324 is subnormal, too small"),
    ("parameters.layers[0][0][0]", 5e-324, "5e-324 is subnormal, too small"),
    ("data.inputs[0][1]", 2e300, "2e+300 is too large"),
    ("parameters.layers[0][0][0]", 2e300, "2e+300 is too large"),
    ("data.inputs[0][1]", 10**200, "an integer with 201 digits is too large"),
    ("data.inputs[0][1]", "1/10**60/10**60/10**60", "'1/10**60/10**60/10**60' is too small"),
    ("data.inputs[0][1]", "10**60 * 10**60 * 10**40", "'10**60 * 10**60 * 10**40' is too large"),
]


def _set(document: dict[str, Any], where: str, value: Any) -> None:
    *path, last = where.replace("]", "").replace("[", ".").split(".")
    target: Any = document
    for key in path:
        target = target[int(key)] if key.isdigit() else target[key]
    target[int(last)] = value


@pytest.mark.parametrize("suffix", [".json", ".toml"])
@pytest.mark.parametrize("where, value, message", EXTREME, ids=[f"{w}={m.split(' is')[0]}" for w, _, m in EXTREME])
def test_extreme_numbers_are_one_line_naming_the_field(tmp_path, capsys, recwarn, suffix, where, value, message):
    document = copy.deepcopy(BASE)
    _set(document, where, value)
    path = tmp_path / f"extreme{suffix}"
    if suffix == ".json":
        with _long_integers():
            path.write_text(json.dumps(document))
    else:  # TOML: the same document, written with the one literal in place
        path.write_text(_toml_with((EXAMPLES / "margin_thm3_2.toml").read_text(), where, value))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"verify: error: {where}: {message} for the checker ({_RANGE})" in err, err
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _toml_with(text: str, where: str, value: Any) -> str:
    """The TOML file with the entry at ``where`` replaced: re-serialized from the parsed document (the examples are
    plain tables of numbers and strings), so that the literal is written exactly as TOML spells it."""
    document = tomllib.loads(text)
    _set(document, where, value)

    def literal(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            with _long_integers():
                return str(v)
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(literal(x) for x in v) + "]"
        return "{" + ", ".join(f"{json.dumps(k)} = {literal(x)}" for k, x in v.items()) + "}"

    return "\n".join(f"{json.dumps(key)} = {literal(v)}" for key, v in document.items()) + "\n"


@contextlib.contextmanager
def _long_integers():
    """Python prints integers of at most 4300 digits; the test writes longer ones."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


def test_extreme_numbers_in_a_parsed_document_and_products_that_overflow():
    document = copy.deepcopy(BASE)
    document["data"]["inputs"][0][1] = 10**4999
    with pytest.raises(ConstructionError, match=r"^data\.inputs\[0\]\[1\]: an integer with 5000 digits is too large"):
        load_construction(document)
    # Every number in range, their product not: the outputs at θ are refused, naming the parameters.
    document = copy.deepcopy(BASE)
    document["data"]["inputs"] = [[1e149, 1e149], [-1e149, 1e149]]
    document["parameters"]["layers"] = [[[1e149, 1e149], [0, 0]], [[1e149, 0]]]
    with pytest.raises(ConstructionError, match=r"^parameters: the network's outputs on data\.inputs are too large"):
        load_construction(document)


def test_small_but_representable_numbers_are_decided_exactly():
    """1e-100 in θ: the witness curve's roots lie within 1e-200 of the interval's end, beyond sympy's numeric
    comparisons; Sturm counting at the rational ends decides them (this was an internal error). The float
    construction is checked with tolerances, and the paper's witness curve, written for θ's entry 0, misses θ."""
    document = copy.deepcopy(BASE)
    document["parameters"]["layers"][0][0][0] = 1e-100
    result = check_construction(document)
    assert [r.verdict for r in result.results] == [F, F, I, R, F], [r.detail for r in result.results]
    assert "the curve does not tend to θ" in result.results[2].detail  # the paper's curve is for the entry 0
