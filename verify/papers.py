"""Installed papers: packages registered under the entry-point group ``ibverify.papers``.

A paper is a Python package; its entry point's name is the paper key (the claim-id prefix, ``soudry`` for
``soudry.thm3``) and its value the importable package. The package defines ``TITLE`` and may define ``AUTHORS``,
``CITATION`` (e.g. the arXiv version the claims cite) and ``ORDER`` (where its chapter goes; default after the
shipped papers). The four shipped papers register the same way, in ibverify's own ``pyproject.toml``.
"""

from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass
from importlib import metadata

GROUP = "ibverify.papers"
_KEY = re.compile(r"^[a-z][a-z0-9]*$")
_DEFAULT_ORDER = 1000


@dataclass(frozen=True)
class Paper:
    key: str
    package: str
    title: str
    authors: str = ""
    citation: str = ""
    order: int = _DEFAULT_ORDER

    @property
    def heading(self) -> str:
        """"Authors: Title" (or the title alone): how the report and the CLI name the paper."""
        return f"{self.authors}: {self.title}" if self.authors else self.title


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _load(entry: metadata.EntryPoint) -> Paper:
    if not _KEY.match(entry.name):
        raise ValueError(f"paper key '{entry.name}' must be lower-case letters and digits")
    module = importlib.import_module(entry.value)
    title = getattr(module, "TITLE", None)
    if not isinstance(title, str) or not title.strip():
        raise ValueError(f"package {entry.value} has no TITLE")
    return Paper(entry.name, entry.value, title.strip(), getattr(module, "AUTHORS", ""),
                 getattr(module, "CITATION", ""), int(getattr(module, "ORDER", _DEFAULT_ORDER)))


@functools.cache
def discover() -> tuple[dict[str, Paper], tuple[str, ...]]:
    """The installed papers by key (in chapter order), and one line per paper that could not be loaded."""
    found: list[Paper] = []
    problems: list[str] = []
    for entry in metadata.entry_points(group=GROUP):
        if any(p.key == entry.name for p in found):
            problems.append(f"paper '{entry.name}' ({entry.value}) skipped: the key is registered twice")
            continue
        try:
            found.append(_load(entry))
        except Exception as exc:  # noqa: BLE001 - a broken plugin is reported and skipped, never fatal
            problems.append(f"paper '{entry.name}' ({entry.value}) skipped: {first_line(exc)}")
    found.sort(key=lambda p: (p.order, p.key))
    return {p.key: p for p in found}, tuple(problems)


def installed() -> dict[str, Paper]:
    return discover()[0]


def problems() -> tuple[str, ...]:
    return discover()[1]


def forget() -> None:
    """Rediscover on the next call (after installing a paper in this process)."""
    discover.cache_clear()
