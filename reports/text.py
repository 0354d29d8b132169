"""Readable forms of the texts that claims write: prose for the PDF, plain text for the terminal.

Claim authors write titles, evidence names and details, conclusion names and perturbation descriptions as
plain strings, and these often carry ASCII notation: ``W_(k+1)^T``, ``x_{ij}``, sympy's ``2*x**2``, Python
reprs such as ``[0.5, 0.25]`` or ``np.float64(0.5)``. :func:`prose` turns such a text into segments of plain,
subscript and superscript text that the report typesets (never as markup: no text can break the document).
Statements, hypotheses and notes are typst markup; :func:`plain_text` gives the terminal a readable form.

Only unambiguous notation is converted: a subscript needs a one-letter (or Greek) base, so identifiers such
as ``max_ratio`` or ``tightness_rate`` stay as written.
"""

from __future__ import annotations

import re

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ", "eta": "η",
    "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ",
    "Psi": "Ψ", "Omega": "Ω",
}
_GREEK_BEFORE_SCRIPT = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(GREEK, key=len, reverse=True)) + r")(?=[_^])")
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool_?)\d*\(([^()]*?)(?:\)|(?=…)|$)")
_ARRAY = re.compile(r"\barray\((\[[^()]*\])(?:,\s*dtype=[\w.]+)?\)")
_LIST_ITEM = r"\s*(?:'[^'\[\]]*'|\"[^\"\[\]]*\"|[-+\w.*/()√]+)\s*"
_LIST = re.compile(r"\[(" + _LIST_ITEM + r"(?:," + _LIST_ITEM + r")+)\]")
# a Python list or dict repr (one level of nesting), read with ast.literal_eval
_REPR = re.compile(r"\[(?:[^\[\]{}]|\[[^\[\]]*\])*\]|\{(?:[^{}\[\]]|\{[^{}]*\}|\[[^\[\]]*\])*\}")
# a Python tuple repr of strings, ('a', 'b') or ('a',): its items without quotes
_QUOTED = r"""\s*(?:'[^'\n]*'|"[^"\n]*")\s*"""
_STRING_TUPLE = re.compile(r"\((" + _QUOTED + r"(?:," + _QUOTED + r")*),?\s*\)")
_POWER = re.compile(r"(?<=[\w)\]}‖|])\*\*(?=[-\w(])")
_PRODUCT = re.compile(r"(?<=[\w)])\*(?=[\w(√])")
_NAN = re.compile(r"(?<![\w.])nan(?![\w.])")
_LONG_FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d{9,}(?:e[-+]?\d+)?(?![\w.])")
# big operators and symbols that take a subscript like a letter: ∏_k, ∑_(i=1), ∇_w, ∫_0
_OPERATORS = "∏∑Σ∇∂∫Π⋃⋂"
_SUPERSCRIPT_DIGITS = "[⁰¹²³⁴⁵⁶⁷⁸⁹]"  # word characters to regex's \w, yet a digit subscript may end on one (‖P‖_2²)
_BRACKETED = r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)|\{(?:[^{}]|\{[^{}]*\})*\}"
# a script: "_" with a bracketed body after any non-space, "_" with a one-token body after a one-letter base
# (any alphabet, with combining accents), a big operator or a closing bracket; "^" after any non-space with a
# bracketed body, a number (1e-05, -4.94), a word or a symbol (⊥, ∞, ⊗L); a body cut short by "…" is taken
_SCRIPT = re.compile(
    r"(?<!\\)(?:(?<=\S)_(?P<subb>" + _BRACKETED + r"|\((?:[^()]|\([^()]*\))*…)"
    r"|(?:(?<=(?<!\w)[^\W\d_])|(?<=(?<=[a-z])[A-Z])|(?<=[\u0300-\u036f)\]}‖|" + _OPERATORS + r"]))_"
    r"(?P<sub>\d+(?!(?!" + _SUPERSCRIPT_DIGITS + r")\w|\.\d)|[^\W\d_](?![a-z])))"
    r"|(?<!\\)(?<=\S)\^"
    r"(?P<sup>" + _BRACKETED + r"|\((?:[^()]|\([^()]*\))*…"
    r"|[-−+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])|[-−]?\w+|[^\s\w()\[\]{}\\]\w*)"
)

Segments = list[tuple[str, str]]  # (text, "" | "sub" | "sup" | "sup.sub" | ...): nested styles, outermost first


def _list_items(match: re.Match[str]) -> str:
    items = [item.strip().strip("'\"") for item in match.group(1).split(",")]
    return "(" + ", ".join(items) + ")"


def _repr_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.8g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(_repr_text(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_repr_text(k)}: {_repr_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _repr(match: re.Match[str]) -> str:
    """A list or dict repr as a tuple or a brace list without quotes; anything else (an index, a set) kept."""
    import ast

    try:
        value = ast.literal_eval(match.group(0))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return match.group(0)
    if isinstance(value, list):
        if not value or (len(value) == 1 and not isinstance(value[0], str)):
            return match.group(0)  # x[0]: an index, not a list
        return _repr_text(value)
    return _repr_text(value) if isinstance(value, dict) and value else match.group(0)


def _short_float(match: re.Match[str]) -> str:
    return f"{float(match.group(0)):.8g}"


def normalize(text: str) -> str:
    """Python and sympy reprs in words: numpy scalars and arrays as numbers, lists as tuples, ``**`` as ``^``,
    ``*`` between operands as a centred dot, ``nan`` as NaN, floats with floating-point noise shortened."""
    text = _NUMPY_SCALAR.sub(r"\1", text)
    text = _ARRAY.sub(r"\1", text)
    text = _REPR.sub(_repr, text)
    text = _LIST.sub(_list_items, text)
    text = _STRING_TUPLE.sub(_list_items, text)
    text = _POWER.sub("^", text)
    text = _PRODUCT.sub("·", text)
    text = _NAN.sub("NaN", text)
    text = _LONG_FLOAT.sub(_short_float, text)
    return _GREEK_BEFORE_SCRIPT.sub(lambda m: GREEK[m.group(1)], text)


def _script_body(body: str) -> str:
    if len(body) >= 2 and body[0] in "({" and body[-1] in ")}":
        body = body[1:-1]
    elif body.startswith("(") and body.endswith("…"):
        body = body[1:]
    return body.replace("-", "−").replace("*", "·") if body != "*" else "*"


def _scripts(text: str, outer: str = "") -> Segments:
    segments: Segments = []
    position = 0
    for match in _SCRIPT.finditer(text):
        if match.start() > position:
            segments.append((text[position: match.start()], outer))
        group = next(g for g in ("subb", "sub", "sup") if match.group(g) is not None)
        style = "sup" if group == "sup" else "sub"
        nested = f"{outer}.{style}" if outer else style
        body = _script_body(match.group(group))
        if style == "sup" and body == "T":
            segments.append(("⊤", nested))
        else:
            segments += _scripts(body, nested)
        position = match.end()
    if position < len(text):
        segments.append((text[position:], outer))
    return segments


def prose(text: str) -> Segments:
    """The text as (text, style) segments: subscripts and superscripts split out (a script inside a script
    has the style "sup.sub" and the like, outermost first), reprs made readable."""
    return _scripts(normalize(text))


_MARKUP_SPECIAL = re.compile(r"([\\_*#$<>@`\[\]~/])")  # verify.claim.plain's escapes, and "/" (comments)
_MARKUP_ESCAPE = re.compile(r"\\([\\_*#$<>@`\[\]~])")
# what stays as written in a markup text: math, raw text, labels and references, links, code
_MARKUP_KEEP = re.compile(r"(?<!\\)\$(?:\\.|[^$\\])*\$|(?<!\\)`[^`]*`|(?<!\\)<[\w:.-]+>|(?<!\\)@[\w:.-]+|"
                          r"https?://\S+|(?<!\\)#[\w.]+(?:\((?:[^()]|\([^()]*\))*\))?(?:\[(?:[^\[\]]|\[[^\[\]]*\])*\])?")


def _markup_scripts(text: str, escape: bool) -> str:
    out = []
    position = 0

    def plain(part: str) -> str:
        return _MARKUP_SPECIAL.sub(r"\\\1", part) if escape else part

    for match in _SCRIPT.finditer(text):
        out.append(plain(text[position: match.start()]))
        group = next(g for g in ("subb", "sub", "sup") if match.group(g) is not None)
        body = _script_body(match.group(group))
        function = "super" if group == "sup" else "sub"
        inner = "⊤" if function == "super" and body == "T" else _markup_scripts(body, True)
        out.append(f"#{function}[{inner}];")
        position = match.end()
    out.append(plain(text[position:]))
    return "".join(out)


def markup_prose(markup: str) -> str:
    """A typst markup text (a statement, hypothesis or note) with the ASCII sub- and superscripts of its prose
    (outside math, raw text and code) typeset: ``ū^⊥`` and ``Q_(k+1)`` as ``ū#super[⊥];``, ``Q#sub[k+1];``."""
    out = []
    position = 0
    def convert(part: str) -> str:
        if "\\_" in part:  # prose escaped as typed (verify.claim.plain): read unescaped, escaped again
            return _markup_scripts(_MARKUP_ESCAPE.sub(r"\1", part), True)
        return _markup_scripts(part, False)

    for match in _MARKUP_KEEP.finditer(markup):
        out.append(convert(markup[position: match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(convert(markup[position:]))
    return "".join(out)


_SUPERSCRIPTS = str.maketrans("0123456789+-−=()niTt", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵀᵗ")
_SUBSCRIPTS = str.maketrans("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")


def _unicode_script(body: str, style: str) -> str:
    table = _SUPERSCRIPTS if style == "sup" else _SUBSCRIPTS
    converted = body.translate(table)
    if all(ord(c) > 127 for c in converted) or (style == "sup" and body == "⊤"):
        return converted
    marker = "^" if style == "sup" else "_"
    return marker + (body if len(body) == 1 else f"({body})")


def prose_plain_segment(part: str, style: str) -> str:
    return _unicode_script(part, style.split(".")[-1]) if style else part


def prose_plain(text: str) -> str:
    """:func:`prose` for a terminal: Unicode sub- and superscripts where they exist, else ``_(...)``/``^(...)``."""
    return "".join(prose_plain_segment(part, style) for part, style in prose(text))


# -- typst markup to plain text ------------------------------------------------------------------------------
_MATH_SYMBOLS = [
    ("<==>", "⟺"), ("==>", "⟹"), ("|->", "↦"), ("->", "→"), ("<-", "←"), ("=>", "⇒"), ("<=", "≤"), (">=", "≥"),
    ("!=", "≠"), ("...", "…"), ("dots.c", "⋯"), ("dots.h", "…"), ("dots.v", "⋮"), ("dots", "…"),
    ("chevron.l", "⟨"), ("chevron.r", "⟩"), ("angle.l", "⟨"), ("angle.r", "⟩"), ("times", "×"),
    ("dot.c", "·"), ("dot", "·"), ("plus.minus", "±"), ("approx", "≈"), ("tilde.op", "∼"), ("prop", "∝"),
    ("in.not", "∉"), ("in", "∈"), ("subset.eq", "⊆"), ("subset", "⊂"), ("union", "∪"), ("sect", "∩"),
    ("emptyset", "∅"), ("forall", "∀"), ("exists", "∃"), ("partial", "∂"), ("nabla", "∇"), ("oo", "∞"),
    ("infinity", "∞"), ("sum", "∑"), ("product", "∏"), ("prod", "∏"), ("integral", "∫"), ("RR", "ℝ"),
    ("NN", "ℕ"), ("ZZ", "ℤ"), ("QQ", "ℚ"), ("CC", "ℂ"), ("lt.eq", "≤"), ("gt.eq", "≥"), ("eq.not", "≠"),
    ("slash", "/"), ("circle", "∘"), ("compose", "∘"), ("star", "⋆"), ("top", "⊤"), ("perp", "⊥"),
    ("quad", "  "), ("wide", "   "), ("thin", " "), ("ell", "ℓ"), ("dif", "d"),
] + sorted(((name, letter) for name, letter in GREEK.items()), key=lambda pair: -len(pair[0]))
_SYMBOL = re.compile("|".join(
    re.escape(name) if not name[0].isalpha() else r"(?<![\w.])" + re.escape(name) + r"(?![A-Za-z0-9])"
    for name, _ in _MATH_SYMBOLS))
_SYMBOL_TEXT = dict(_MATH_SYMBOLS)
_WRAPPERS = {"norm": ("‖", "‖"), "abs": ("|", "|"), "floor": ("⌊", "⌋"), "ceil": ("⌈", "⌉"),
             "sqrt": ("√(", ")"), "op": ("", ""), "upright": ("", ""), "bold": ("", ""), "cal": ("", ""),
             "italic": ("", ""), "hat": ("", "̂"), "tilde": ("", "̃"), "overline": ("", "̅"), "bb": ("", ""),
             "vec": ("", "⃗"), "lr": ("", ""), "mat": ("(", ")"), "vec.": ("", "")}
_CALL = re.compile(r"(?<![\w.])(" + "|".join(re.escape(name) for name in _WRAPPERS) + r")\(")
_QUOTED = re.compile(r'"([^"]*)"')
_ESCAPE = re.compile(r"\\(.)")


def _closing(text: str, start: int) -> int:
    """Index of the parenthesis closing the one opened just before ``start`` (or len(text))."""
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def _math_plain(source: str) -> str:
    text = source
    while (match := _CALL.search(text)) is not None:
        end = _closing(text, match.end())
        opening, closing = _WRAPPERS[match.group(1)]
        inner = text[match.end(): end]
        if match.group(1) in ("hat", "tilde", "overline", "vec") and len(inner.strip()) == 1:
            replaced = inner.strip() + closing
        else:
            replaced = opening + inner + (closing if match.group(1) not in ("hat", "tilde", "overline", "vec")
                                          else "")
        text = text[: match.start()] + replaced + text[end + 1:]
    text = _QUOTED.sub(r"\1", text)
    text = _SYMBOL.sub(lambda m: _SYMBOL_TEXT[m.group(0)], text)
    text = _ESCAPE.sub(r"\1", text)
    text = re.sub(r"\^T(?![\w(])", "ᵀ", text)
    text = re.sub(r"\^(\d)(?![\w(])", lambda m: m.group(1).translate(_SUPERSCRIPTS), text)
    return re.sub(r"(?<=\w) (?=\()", "", text)  # typst's "W (t)" spacing: W(t)


def plain_text(markup: str) -> str:
    """A typst markup text (a statement, hypothesis or note) as readable plain text: math between ``$``
    with Unicode symbols, backslash escapes resolved, emphasis marks dropped."""
    parts = re.split(r"(?<!\\)\$", markup)
    out = []
    for index, part in enumerate(parts):
        if index % 2:  # math
            out.append(_math_plain(part))
        else:
            part = re.sub(r"(?<![\w\\])\*([^*\n]+)\*(?!\w)", r"\1", part)  # *strong*
            part = re.sub(r"(?<![\w\\])_([^_\n]+)_(?!\w)", r"\1", part)  # _emphasis_
            out.append(_ESCAPE.sub(r"\1", part))
    return " ".join("".join(out).split())


def evidence_labels(roles: list[str]) -> list[str]:
    """E1, E2, ... for evidence items and C1, C2, ... for negative controls (role "control"), in recording
    order: the names by which the report and ``verify show`` refer to a claim's items."""
    counts = {"E": 0, "C": 0}
    labels = []
    for role in roles:
        prefix = "C" if role == "control" else "E"
        counts[prefix] += 1
        labels.append(f"{prefix}{counts[prefix]}")
    return labels
