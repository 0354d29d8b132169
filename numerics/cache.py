"""The on-disk cache of derived artifacts (compiled kernels, drawn plots): anything in it can be deleted."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(kind: str) -> Path:
    """The folder for one kind of artifact: under $IBVERIFY_CACHE_DIR, else $XDG_CACHE_HOME/ibverify or
    ~/.cache/ibverify. Not created here."""
    root = os.environ.get("IBVERIFY_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache",
                                                         "ibverify")
    return Path(root) / kind
