"""An independent audit of a results file: no label says more than its evidence.

Re-derives from the stored evidence, conclusion by conclusion, what the verdict rules promise, without calling
them: a certified conclusion has only rigorous (symbolic, exact, interval), passing items with a proof among them
and a rejected control; a refuted one has a passing rigorous counterexample; every item is attributed to a declared
conclusion, and every control perturbs a call of the same criterion. Run as
``python -m verify.audit out/results.json``: one line per violation, exit status 1 if there is any.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RIGOROUS = {"symbolic", "exact", "interval"}


def audit_result(result: Mapping[str, Any]) -> list[str]:
    """The violations in one claim's result (JSON form)."""
    claim_id = result["id"]
    evidence: Sequence[Mapping[str, Any]] = result["evidence"]
    conclusions = result.get("conclusions") or []
    problems = []
    if not conclusions:
        return [f"{claim_id}: no conclusions recorded"]
    names = {c["name"] for c in conclusions}
    for index, item in enumerate(evidence):
        if item["role"] != "error" and item.get("conclusion") not in names:
            problems.append(f"{claim_id}: evidence #{index} '{item['name']}' bears on no declared conclusion")
        if item["role"] == "control":
            original = item.get("perturbs")
            if original is None or not (0 <= original < len(evidence)) or \
                    evidence[original].get("criterion") != item.get("criterion") or not item.get("criterion"):
                problems.append(f"{claim_id}: control #{index} '{item['name']}' is not the criterion of the item "
                                "it perturbs")
            elif evidence[original].get("arguments") == item.get("arguments") and not item.get("change"):
                problems.append(f"{claim_id}: control #{index} '{item['name']}' perturbs nothing")
    for conclusion in conclusions:
        items = [evidence[i] for i in conclusion["evidence"]]
        own = [e for e in items if e["role"] in ("proof", "support", "counterexample")]
        controls = [e for e in items if e["role"] == "control"]
        label = f"{claim_id} / {conclusion['name']}"
        if conclusion["verdict"] == "certified":
            if not own or any(e["kind"] not in RIGOROUS or not e["passed"] for e in own):
                problems.append(f"{label}: certified on non-rigorous or failing evidence")
            if not any(e["role"] == "proof" for e in own) or any(e["role"] == "counterexample" for e in own):
                problems.append(f"{label}: certified without a proof, or beside a counterexample")
        if conclusion["verdict"] == "refuted":
            if not any(e["role"] == "counterexample" and e["passed"] and e["kind"] in RIGOROUS for e in own):
                problems.append(f"{label}: refuted without a rigorous counterexample")
            if any(e["role"] == "counterexample" and not e["passed"] for e in own):
                problems.append(f"{label}: refuted while a counterexample attempt failed")
        if conclusion["verdict"] in ("certified", "confirmed", "refuted", "contradicted", "assumed"):
            if not controls or not all(e["passed"] and not e.get("undecided") for e in controls):
                problems.append(f"{label}: {conclusion['verdict']} without a rejected control")
            if any(e["role"] == "error" for e in items):
                problems.append(f"{label}: {conclusion['verdict']} beside an error")
            if conclusion["verdict"] in ("certified", "confirmed", "assumed") and not all(e["passed"] for e in own):
                problems.append(f"{label}: {conclusion['verdict']} with a failing item")
    return problems


def audit(run: Mapping[str, Any]) -> list[str]:
    """The violations in a whole results file (JSON form)."""
    return [line for result in run["results"] for line in audit_result(result)]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m verify.audit RESULTS.json", file=sys.stderr)
        return 2
    try:
        run = json.loads(Path(args[0]).read_text())
        problems = audit(run)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"verify.audit: error: cannot read {args[0]}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    conclusions = sum(len(r.get("conclusions", [])) for r in run["results"])
    print(f"audited {len(run['results'])} claims, {conclusions} conclusions: {len(problems)} violations",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
