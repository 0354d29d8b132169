"""Result store: the latest run as JSON and every run appended to an SQLite history."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from verify.runner import ClaimResult, RunResults

STORE_ENV = "IBVERIFY_STORE"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL, profile TEXT NOT NULL, seed INTEGER NOT NULL, git_commit TEXT NOT NULL,
    wall_seconds REAL NOT NULL, provenance TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL REFERENCES runs(run_id), claim_id TEXT NOT NULL, verdict TEXT NOT NULL,
    expected TEXT NOT NULL, seconds REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, claim_id)
);
"""


class ResultStore:
    """A folder holding ``latest.json`` and ``history.sqlite``."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root or os.environ.get(STORE_ENV, ".verify"))

    @property
    def latest_path(self) -> Path:
        return self.root / "latest.json"

    @property
    def history_path(self) -> Path:
        return self.root / "history.sqlite"

    def _connect(self) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.history_path)
        connection.executescript(_SCHEMA)
        return connection

    def save(self, run: RunResults) -> int:
        """Write the run as the latest and append it to the history; returns the history's run id."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.latest_path.write_text(json.dumps(run.to_json(), indent=1))
        p = run.provenance
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO runs (started, profile, seed, git_commit, wall_seconds, provenance) VALUES (?,?,?,?,?,?)",
                (p["started"], p["profile"], p["seed"], p["git_commit"], p.get("wall_seconds", 0.0), json.dumps(p)),
            )
            run_id = int(cursor.lastrowid)
            db.executemany(
                "INSERT INTO results VALUES (?,?,?,?,?,?)",
                [(run_id, r.id, r.verdict.value, r.expected.value, r.seconds, json.dumps(r.to_json()))
                 for r in run.results],
            )
        return run_id

    def latest(self) -> RunResults | None:
        if not self.latest_path.exists():
            return None
        return RunResults.from_json(json.loads(self.latest_path.read_text()))

    def latest_result(self, claim_id: str) -> tuple[ClaimResult, dict] | None:
        """The most recent stored result of one claim, with the provenance of its run."""
        if not self.history_path.exists():
            return None
        with self._connect() as db:
            row = db.execute(
                "SELECT r.data, runs.provenance FROM results r JOIN runs ON r.run_id = runs.run_id "
                "WHERE r.claim_id = ? ORDER BY r.run_id DESC LIMIT 1", (claim_id,),
            ).fetchone()
        if row is None:
            return None
        return ClaimResult.from_json(json.loads(row[0])), json.loads(row[1])

    def history(self, claim_id: str, limit: int = 20) -> list[tuple[str, str, str, float]]:
        """(started, profile, verdict, seconds) of the latest runs of a claim, newest first."""
        if not self.history_path.exists():
            return []
        with self._connect() as db:
            return db.execute(
                "SELECT runs.started, runs.profile, r.verdict, r.seconds FROM results r JOIN runs "
                "ON r.run_id = runs.run_id WHERE r.claim_id = ? ORDER BY r.run_id DESC LIMIT ?",
                (claim_id, limit),
            ).fetchall()
