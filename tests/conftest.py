"""Shared fixtures: hypothesis profiles and a registry of toy claims for framework tests."""

import os

import pytest
from hypothesis import settings

from verify import registry
from verify.claim import Criterion

pytest_plugins = ["pytester"]

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture
def toy_registry(monkeypatch):
    """An isolated registry holding toy claims, one per verdict the rules can produce."""
    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_loaded", True)
    profiles = {"quick": "tiny instance"}

    nonnegative = Criterion("sign * x² ≥ 0 for x in the sample", lambda sign, sample: all(sign * x * x >= 0
                                                                                       for x in sample))

    @registry.claim(id="rank.toy.certified", ref="Lemma 0", kind="lemma", title="x² ≥ 0",
                    statement="$x^2 >= 0$", conclusions={"x² ≥ 0 (x = −2, …, 2)": "certified"}, profiles=profiles)
    def _certified(ctx):
        ctx.prove("square is nonnegative", "exact", nonnegative(1, range(-2, 3)), "x² = |x|²", {"residual": 0})
        ctx.control("wrong sign", nonnegative(-1, range(-2, 3)), "−x² ≥ 0 fails at x = 1")

    small = Criterion("|error| ≤ tolerance", lambda error, tolerance: abs(error) <= tolerance)

    @registry.claim(id="margin.toy.confirmed", ref="Theorem 0", kind="theorem", title="a tolerance met",
                    statement="$f(t) -> 0$", conclusions={"f(t) → 0": "confirmed"}, profiles=profiles)
    def _confirmed(ctx):
        value = float(ctx.rng("noise").normal()) * 1e-12
        ctx.support("error small", "numeric", small(value, 1e-9), "error below tolerance", {"error": value})
        ctx.control("shifted limit", small(value - 1, 1e-9), "f(t) → 1 fails")

    exceeds = Criterion("a(x) > b(x) + shift", lambda x, shift: x / 3 > shift)

    @registry.claim(id="tensor.toy.refuted", ref="Corollary 0", kind="corollary", title="printed bound",
                    statement="$a <= b$", conclusions={"a ≤ b": "refuted"}, profiles=profiles,
                    corrected_by="tensor.toy.corrected", erratum="substantive")
    def _refuted(ctx):
        ctx.counterexample("a > b at x = 1", "exact", exceeds(1, 0), "a − b = 1/3 exactly", {"gap": "1/3"})
        ctx.control("corrected bound not refuted by the same criterion", exceeds(1, 1), "no violation of a <= b + 1")

    @registry.claim(id="tensor.toy.corrected", ref="Corollary 0 (corrected)", kind="corollary",
                    title="corrected bound", statement="$a <= b + 1$", conclusions={"a ≤ b + 1": "certified"},
                    profiles=profiles, corrects="tensor.toy.refuted")
    def _corrected(ctx):
        ctx.prove("bound holds", "exact", not exceeds(1, 1), "a − b − 1 ≤ 0")
        ctx.prove("bound holds", "exact", nonnegative(1, [1]), "a − b − 1 ≤ 0")
        ctx.control("original bound", nonnegative(-1, [1]), "a ≤ b fails")

    anything = Criterion("1 = 1 + shift·0", lambda shift: 1 == 1 + shift * 0)

    @registry.claim(id="align.toy.toothless", ref="Eq. (0)", kind="equation", title="control passes",
                    statement="$1 = 1$", conclusions={"1 = 1": "confirmed"}, profiles=profiles)
    def _toothless(ctx):
        ctx.support("holds", "numeric", anything(0), "1 = 1")
        ctx.control("perturbed also holds", anything(1), "1 = 1 + 0 is accepted too")

    @registry.claim(id="align.toy.crash", ref="Eq. (00)", kind="equation", title="raises",
                    statement="$?$", conclusions={"?": "confirmed"}, profiles=profiles)
    def _crash(ctx):
        raise RuntimeError("solver exploded")

    return registry
