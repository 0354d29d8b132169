"""ibverify's framework: the claim model, registry, runner, result store, CLI and pytest plugin."""

from verify.claim import (
    Context,
    Criterion,
    Decision,
    EvidenceKind,
    Plot,
    Profile,
    Tightness,
    Verdict,
    criterion,
    histogram,
    line,
    plain,
    tightness,
)
from verify.registry import claim

__all__ = ["Context", "Criterion", "Decision", "EvidenceKind", "Plot", "Profile", "Tightness", "Verdict", "claim",
           "criterion", "histogram", "line", "plain", "tightness"]
