"""Shared fixtures: hypothesis profiles and a registry of toy claims for framework tests."""

import os

import pytest
from hypothesis import settings

from verify import registry

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

    @registry.claim(id="rank.toy.certified", ref="Lemma 0", kind="lemma", title="x² ≥ 0",
                    statement="$x^2 >= 0$", expected="certified", profiles=profiles)
    def _certified(ctx):
        ctx.prove("square is nonnegative", "symbolic", True, "x² = |x|²", {"residual": 0})
        ctx.control("wrong sign", True, "−x² ≥ 0 fails at x = 1", {"value": -1})

    @registry.claim(id="margin.toy.confirmed", ref="Theorem 0", kind="theorem", title="a tolerance met",
                    statement="$f(t) -> 0$", expected="confirmed", profiles=profiles)
    def _confirmed(ctx):
        value = float(ctx.rng("noise").normal()) * 1e-12
        ctx.support("error small", "numeric", abs(value) < 1e-9, "error below tolerance", {"error": value})
        ctx.control("shifted limit", True, "f(t) → 1 fails")

    @registry.claim(id="tensor.toy.refuted", ref="Corollary 0", kind="corollary", title="printed bound",
                    statement="$a <= b$", expected="refuted", profiles=profiles,
                    corrected_by="tensor.toy.corrected")
    def _refuted(ctx):
        ctx.counterexample("a > b at x = 2", "exact", True, "a − b = 1/3 exactly", {"gap": "1/3"})
        ctx.control("corrected bound not refuted by the same search", True, "no violation of a <= b + 1")

    @registry.claim(id="tensor.toy.corrected", ref="Corollary 0 (corrected)", kind="corollary",
                    title="corrected bound", statement="$a <= b + 1$", expected="certified", profiles=profiles,
                    corrects="tensor.toy.refuted")
    def _corrected(ctx):
        ctx.prove("bound holds", "exact", True, "a − b − 1 ≤ 0")
        ctx.control("original bound", True, "a ≤ b fails")

    @registry.claim(id="align.toy.toothless", ref="Eq. (0)", kind="equation", title="control passes",
                    statement="$1 = 1$", expected="confirmed", profiles=profiles)
    def _toothless(ctx):
        ctx.support("holds", "numeric", True, "1 = 1")
        ctx.control("perturbed also holds", False, "1 = 1 + 0 is accepted too")

    @registry.claim(id="align.toy.crash", ref="Eq. (00)", kind="equation", title="raises",
                    statement="$?$", expected="confirmed", profiles=profiles)
    def _crash(ctx):
        raise RuntimeError("solver exploded")

    return registry
