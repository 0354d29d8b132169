"""Evidence plots drawn as deterministic SVG with matplotlib.

The same :class:`~verify.claim.Plot` always gives the same bytes: no pyplot state, fixed rc parameters, a
fixed ``svg.hashsalt`` for clip-path ids and no date in the metadata. Text stays text (``svg.fonttype``
none), set in DejaVu Sans as shipped with matplotlib: the report hands typst these font files
(:data:`PLOT_FONTS`), so labels are embedded, searchable and the same on every machine.

Drawing costs about 50 ms a plot, most of the report's render time; drawn plots are therefore kept on disk
(:func:`numerics.cache.cache_dir`, keyed by the plot's data and matplotlib's version), and ``verify run --report``
draws them ahead in the workers that ran the claims (:func:`draw_ahead`).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from numerics.cache import cache_dir
from reports.text import prose, prose_plain_segment
from verify.claim import Plot
from verify.runner import ClaimResult

# the faces that labels and mathtext ($...$ in a label) use with mathtext.fontset "dejavusans"
PLOT_FONTS = tuple(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name
                   for name in ("DejaVuSans.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-Bold.ttf"))
PLOT_KINDS = frozenset({"line", "scatter", "hist"})
AXIS_SCALES = frozenset({"linear", "log", "symlog"})
FIGURE_INCHES = (5.6, 2.4)
MAX_HISTOGRAM_BINS = 40
_DRAWING_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # a change of style or code redraws

STYLE = {
    "svg.hashsalt": "ibverify-report",
    "svg.fonttype": "none",
    "font.family": "DejaVu Sans",  # PLOT_FONTS: every superscript digit and Greek letter is there
    "mathtext.fontset": "dejavusans",
    "font.size": 7.5,
    "axes.labelsize": 7.5,
    "legend.fontsize": 6.8,
    "xtick.labelsize": 6.8,
    "ytick.labelsize": 6.8,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "lines.linewidth": 1.1,
    "legend.frameon": False,
    "axes.prop_cycle": matplotlib.cycler(color=["#1f4e79", "#c05a00", "#2e7d32", "#7b1fa2", "#00838f",
                                                "#8d6e63", "#546e7a"]),
}
REFERENCE_STYLE = {"color": "#444444", "linestyle": (0, (4, 3)), "linewidth": 0.8}


class PlotError(ValueError):
    """A plot that cannot be drawn as described (unknown kind or scale); the report shows the reason."""


def _values(values: Iterable[float | None]) -> np.ndarray:
    """Stored plots write non-finite numbers as null; they become gaps."""
    return np.array([math.nan if v is None else float(v) for v in values], dtype=float)


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _power_of_ten(value: float, _position: int | None = None) -> str:
    """Log-axis tick labels as plain text with superscripts: matplotlib's mathtext labels cost a third of
    the drawing time."""
    if value == 0:
        return "0"
    exponent = math.log10(abs(value))
    if abs(exponent - round(exponent)) > 1e-9:
        return f"{value:g}".replace("-", "\u2212")
    sign = "\u2212" if value < 0 else ""
    return f"{sign}10{str(round(exponent)).translate(_SUPERSCRIPT)}"


_MATHTEXT_SPECIAL = re.compile(r"([{}_$%#&^~\\])")


def _mathtext_script(body: str, style: str) -> str:
    """A script that Unicode lacks as mathtext: upright, spaces kept, nested levels as nested scripts."""
    body = _MATHTEXT_SPECIAL.sub(r"\\\1", body).replace(" ", r"\ ")
    level = style.split(".")[-1]  # a script inside a script is set one level up
    return "$" + ("^{" if level == "sup" else "_{") + r"\mathrm{" + body + "}}$"


def _label(text: str) -> str:
    """A label as the reader should see it: W_k, x**2 and list reprs made readable, mathtext ($...$) kept;
    a script without Unicode characters (^(2/k)) is set as mathtext."""
    if "$" in text:
        return text
    out = []
    for part, style in prose(text):
        if not style:
            out.append(part)
            continue
        plain = prose_plain_segment(part, style)
        out.append(plain if "." not in style and not plain.startswith(("^", "_")) else _mathtext_script(part, style))
    return "".join(out)


def axis_labels(plot: Plot) -> tuple[str, str]:
    """The plot's axis labels, falling back where the claim gave none: "index" for sequences drawn against
    their index, "count" for histograms, the one series' label, or the series' labels together."""
    xlabel, ylabel = plot.xlabel, plot.ylabel
    if not xlabel and plot.kind != "hist" and plot.series and all(not s.y for s in plot.series):
        xlabel = "index"
    if not ylabel:
        labels = [s.label for s in plot.series if s.label]
        if plot.kind == "hist":
            ylabel = "count"
        elif len(labels) == 1 or len(set(labels)) == 1:
            ylabel = labels[0]
        elif labels and len(", ".join(labels)) <= 40:
            ylabel = ", ".join(labels)
        else:
            ylabel = "value"
    return _label(xlabel), _label(ylabel)


def _legend(figure: Figure, ax: Axes) -> float:
    """A legend above the axes, never over the data; returns the axes' top as a fraction of the figure."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return 0.96
    width = sum(len(label) + 6 for label in labels)
    columns = len(labels) if width <= 95 else max(1, min(len(labels), 95 // max(len(label) + 6 for label in labels)))
    rows = math.ceil(len(labels) / columns)
    top = 0.95 - 0.075 * rows
    figure.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.1, 0.995), ncols=columns,
                  borderaxespad=0.2, handlelength=1.8, columnspacing=1.4)
    return top


def _draw_curves(ax: Axes, plot: Plot) -> None:
    for series in plot.series:
        x, y = _values(series.x), _values(series.y)
        if not len(y):  # a bare sequence is plotted against its index
            x, y = np.arange(len(x), dtype=float), x
        if len(x) != len(y):
            raise PlotError(f"series '{series.label}' has {len(x)} x values but {len(y)} y values")
        if plot.kind == "line":
            ax.plot(x, y, label=_label(series.label))
        else:
            ax.plot(x, y, linestyle="none", marker="o", markersize=2.5, alpha=0.8, label=_label(series.label))
    for label, value in plot.reference:
        ax.axhline(value, label=_label(label), **REFERENCE_STYLE)


def _draw_histogram(ax: Axes, plot: Plot) -> None:
    samples = [_values(s.x) for s in plot.series]
    samples = [s[np.isfinite(s)] for s in samples]
    pooled = np.concatenate(samples) if samples else np.zeros(0)
    if plot.xscale == "log":
        pooled = pooled[pooled > 0]
    if pooled.size:
        if plot.xscale == "log":
            low, high = math.log10(pooled.min()), math.log10(pooled.max())
            if high - low < 1e-9:  # one distinct value: a decade around it
                low, high = low - 0.5, high + 0.5
            edges = np.logspace(low, high, 25)
        else:
            edges = np.histogram_bin_edges(pooled, bins="auto")
            if len(edges) > MAX_HISTOGRAM_BINS + 1:
                edges = np.linspace(edges[0], edges[-1], MAX_HISTOGRAM_BINS + 1)
        for series, values in zip(plot.series, samples):
            _, _, patches = ax.hist(values, bins=edges, histtype="stepfilled", alpha=0.35,
                                    label=_label(series.label))
            ax.hist(values, bins=edges, histtype="step", linewidth=0.9, color=patches[0].get_facecolor()[:3])
    for label, value in plot.reference:
        ax.axvline(value, label=_label(label), **REFERENCE_STYLE)


def plot_svg(plot: Plot) -> str:
    """The plot as an SVG document (log axes, reference lines and legend as the plot says).

    The title is left to the caption that the report sets in the document's own type; an axes title would
    also cost a tick-label layout pass.
    """
    if plot.kind not in PLOT_KINDS:
        raise PlotError(f"unknown plot kind '{plot.kind}' (expected one of {', '.join(sorted(PLOT_KINDS))})")
    for scale in (plot.xscale, plot.yscale):
        if scale not in AXIS_SCALES:
            raise PlotError(f"unknown axis scale '{scale}' (expected one of {', '.join(sorted(AXIS_SCALES))})")
    path = _cached_path(plot)
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    try:
        svg = _draw(plot)
    except PlotError:
        raise
    except ValueError as exc:  # data matplotlib refuses: the report shows why instead of failing whole
        raise PlotError(f"cannot be drawn: {exc}") from None
    _store(path, svg)
    return svg


def _cached_path(plot: Plot) -> Path:
    key = json.dumps([_DRAWING_CODE, matplotlib.__version__, plot.to_json()], sort_keys=True, default=str)
    return cache_dir("plots") / f"{hashlib.sha256(key.encode()).hexdigest()}.svg"


def _store(path: Path, svg: str) -> None:
    """Write atomically (parallel workers may draw the same plot); a cache that cannot be written is skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as f:
            f.write(svg)
        os.replace(f.name, path)
    except OSError:
        pass


def _draw(plot: Plot) -> str:
    with matplotlib.rc_context(STYLE), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty or non-positive data on log axes: the picture says enough
        figure = Figure(figsize=FIGURE_INCHES)
        ax = figure.add_subplot()
        if plot.kind == "hist":
            _draw_histogram(ax, plot)
        else:
            _draw_curves(ax, plot)
        for set_scale, axis, scale in ((ax.set_xscale, ax.xaxis, plot.xscale),
                                       (ax.set_yscale, ax.yaxis, plot.yscale)):
            if scale != "linear":
                set_scale(scale)
                axis.set_major_formatter(FuncFormatter(_power_of_ten))
        ax.minorticks_off()  # minor log ticks cost more than half of the drawing time and add little
        xlabel, ylabel = axis_labels(plot)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, linewidth=0.3, color="#d0d0d0")
        ax.set_axisbelow(True)
        top = _legend(figure, ax)  # above the axes: a legend inside them covers data somewhere
        figure.subplots_adjust(left=0.1, right=0.98, bottom=0.19, top=top)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def draw_ahead(result: ClaimResult) -> None:
    """Draw a claim's plots into the cache (run in the worker that ran the claim, so plots are drawn in parallel)."""
    plot_svgs([item.plot for item in result.evidence if item.plot is not None])


def plot_svgs(plots: Sequence[Plot]) -> list[str | PlotError]:
    """SVG of every plot, in order, or the reason one cannot be drawn.

    Cached plots are read, the others drawn one after another here (a pool would import matplotlib in every
    worker); :func:`draw_ahead` spreads the drawing over the workers of a run instead.
    """
    drawn: list[str | PlotError] = []
    for plot in plots:
        try:
            drawn.append(plot_svg(plot))
        except PlotError as exc:
            drawn.append(exc)
    return drawn
