"""ibverify's own cosmic-ray mutation operator: drop one conjunct of a condition (``verify bench teeth``).

Registered with cosmic-ray as the operator provider ``ibverify`` (entry point group
``cosmic_ray.operator_providers`` in pyproject.toml), so its full name is ``ibverify/DropConjunct`` and
cosmic-ray's own commands (``cosmic-ray init``, ``cr-report``) know it too. It mutates

* ``a and b and c``: each conjunct dropped in turn (``b and c``, ``a and c``, ``a and b``; ``a and b`` gives
  ``b`` and ``a``);
* ``all([a, b, c])`` / ``all((a, b, c))``, a literal list or tuple of two or more conditions: each condition
  replaced by ``True`` in turn (the same as leaving it out, without changing the list's shape or line numbers);
* ``(x > 0) & (y < 1) & ...``, a numpy mask built with ``&`` from at least one parenthesized comparison: each
  operand dropped in turn.

A certificate condition with a dropped conjunct accepts more than it should: a test that still passes does not
depend on the dropped part, which is what mutation testing asks of the claims' criteria.

This module imports cosmic-ray, an optional dependency (``pip install -e '.[mutate]'``).
"""

from __future__ import annotations

from collections.abc import Iterator

import parso.python.tree
from cosmic_ray.operators.operator import Example, Operator

Position = tuple[tuple[int, int], tuple[int, int]]


def _conjunction_operands(node) -> list | None:
    """The operands of ``a and b ...`` or of a comparison mask ``(a < b) & c ...``; None for anything else."""
    if node.type == "and_test":
        return node.children[::2]
    if node.type == "and_expr" and all(getattr(op, "value", None) == "&" for op in node.children[1::2]):
        operands = node.children[::2]
        if any(op.type == "atom" and len(op.children) == 3 and op.children[1].type == "comparison"
               for op in operands):
            return operands
    return None


def _all_elements(node) -> list | None:
    """The elements of the literal list or tuple in ``all([a, b])`` / ``all((a, b))`` (two or more), else None."""
    if node.type not in ("atom_expr", "power") or len(node.children) != 2:
        return None
    name, trailer = node.children
    if getattr(name, "value", None) != "all" or trailer.type != "trailer" or len(trailer.children) != 3:
        return None
    if trailer.children[0].value != "(":
        return None
    atom = trailer.children[1]
    if atom.type != "atom" or len(atom.children) != 3 or atom.children[0].value not in "([":
        return None
    inner = atom.children[1]
    if inner.type != "testlist_comp" or any(c.type in ("sync_comp_for", "comp_for") for c in inner.children):
        return None
    elements = [c for c in inner.children if not (c.type == "operator" and c.value == ",")]
    if len(elements) < 2 or any(e.type == "star_expr" for e in elements):
        return None
    return elements


class DropConjunct(Operator):
    """Drop one conjunct of ``a and b``, of ``all([a, b])`` or of a comparison mask ``(a < b) & c``."""

    def mutation_positions(self, node) -> Iterator[Position]:
        operands = _conjunction_operands(node)
        if operands is None:
            operands = _all_elements(node)
        for operand in operands or ():
            yield operand.start_pos, operand.end_pos

    def mutate(self, node, index: int):
        operands = _conjunction_operands(node)
        if operands is not None:
            return _drop_operand(node, operands, index)
        elements = _all_elements(node)
        assert elements is not None and index < len(elements)
        dropped = elements[index]
        replacement = parso.python.tree.Keyword("True", dropped.start_pos, prefix=dropped.get_first_leaf().prefix)
        inner = dropped.parent
        inner.children = [replacement if child is dropped else child for child in inner.children]
        return node

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (
            Example("x = a and b", "x = b"),
            Example("x = a and b", "x = a", occurrence=1),
            Example("x = a and b and c", "x = a and c", occurrence=1),
            Example("ok = all([a > 0, b < 1])", "ok = all([True, b < 1])"),
            Example("ok = all((a, b))", "ok = all((a, True))", occurrence=1),
            Example("m = (x > 0) & (y > 0)", "m = (y > 0)"),
            Example("m = (x > 0) & (y > 0)", "m = (x > 0)", occurrence=1),
        )


def _drop_operand(node, operands: list, index: int):
    assert index < len(operands)
    keywords = node.children[1::2]
    first_prefix = node.get_first_leaf().prefix
    kept = [op for k, op in enumerate(operands) if k != index]
    joins = [kw for k, kw in enumerate(keywords) if k != max(index - 1, 0)]
    if index == 0:  # the new first operand takes the expression's leading whitespace, or keeps its line break
        leaf = kept[0].get_first_leaf()
        if "\n" not in leaf.prefix:
            leaf.prefix = first_prefix
    if len(kept) == 1:
        return kept[0]
    children = [kept[0]]
    for join, operand in zip(joins, kept[1:]):
        children += [join, operand]
    node.children = children
    return node


OPERATORS = {"DropConjunct": DropConjunct}


class OperatorProvider:
    """cosmic-ray operator provider ``ibverify``: its operators by name."""

    def __iter__(self) -> Iterator[str]:
        return iter(OPERATORS)

    def __getitem__(self, name: str) -> type[Operator]:
        return OPERATORS[name]
