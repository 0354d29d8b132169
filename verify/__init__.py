"""ibverify's framework: the claim model, registry, runner, result store, CLI and pytest plugin."""

from verify.claim import (
    Context,
    Criterion,
    Decision,
    EvidenceKind,
    Plot,
    Profile,
    Verdict,
    criterion,
    histogram,
    line,
    plain,
)
from verify.registry import claim

__all__ = ["Context", "Criterion", "Decision", "EvidenceKind", "Plot", "Profile", "Verdict", "claim", "criterion",
           "histogram", "line", "plain"]
