"""ibverify's framework: the claim model, registry, runner, result store, CLI and pytest plugin."""

from verify.claim import Context, EvidenceKind, Plot, Profile, Verdict, histogram, line, plain
from verify.registry import claim

__all__ = ["Context", "EvidenceKind", "Plot", "Profile", "Verdict", "claim", "histogram", "line", "plain"]
