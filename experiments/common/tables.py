"""Text and Markdown tables, rendered by ``tabulate``.

Cells arrive as strings already formatted by the caller (numbers with their digits,
intervals as ``[low, high]`` or ``n/a (1 deck)``), so ``tabulate`` only lays them out:
number parsing is off, the leading label columns are left-aligned and the figures
right-aligned.

Groups
    A text table can separate groups of rows (for example one contract's rows from the
    next) with a rule.  Rules are drawn only where they help: between runs of equal
    values in the group column, and only if some run holds more than one row - so a table
    whose group column changes on every row gets no rule after every row.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import SEPARATING_LINE, tabulate

__all__ = ["markdown_table", "text_table", "wrap_cell"]


def _align(head: Sequence[str], left: int) -> list[str]:
    return ["left" if i < left else "right" for i in range(len(head))]


def _check(head: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    for n, row in enumerate(rows):
        if len(row) != len(head):
            raise ValueError(f"table row {n} has {len(row)} cells, the header has {len(head)}: {list(row)}")


def text_table(head: Sequence[str], rows: Sequence[Sequence[str]], *, group: int | None = 0, left: int = 2,
               align: Sequence[str] | None = None, max_widths: Sequence[int | None] | None = None) -> str:
    """A plain-text table for the terminal.

    Args:
        head: column titles.
        rows: rows of cell strings, as many as titles.
        group: column whose runs of equal values are separated by a rule (``None``: no
            rules; see the module docstring).
        left: how many leading columns are left-aligned (the rest are right-aligned).
        align: per column ``"left"``, ``"right"`` or ``"center"``, instead of ``left``.
        max_widths: per column, a width past which a cell wraps onto more lines
            (``None`` for a column that never wraps).

    Raises:
        ValueError: a row has more or fewer cells than the header.

    >>> print(text_table(["agent", "pen."], [["a", "1.0"], ["bb", "12.5"]], left=1))
    agent      pen.
    -------  ------
    a           1.0
    bb         12.5
    """
    _check(head, rows)
    body: list[Sequence[str] | str] = list(rows)
    if group is not None and rows:
        runs = 1 + sum(1 for a, b in zip(rows, rows[1:]) if a[group] != b[group])
        if runs < len(rows):  # some run holds more than one row
            body = []
            for n, row in enumerate(rows):
                if n and row[group] != rows[n - 1][group]:
                    body.append(SEPARATING_LINE)
                body.append(row)
    return tabulate(body, headers=list(head), tablefmt="simple", disable_numparse=True,
                    colalign=list(align) if align else _align(head, left), maxcolwidths=list(max_widths) if max_widths else None)


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[str]], *, left: int = 2) -> str:
    """A GitHub-flavoured Markdown table (``|`` in cells escaped).

    Raises:
        ValueError: a row has more or fewer cells than the header.

    >>> print(markdown_table(["x - y", "diff"], [["a - b", "+1.0"]], left=1))
    | x - y   |   diff |
    |:--------|-------:|
    | a - b   |   +1.0 |
    """
    _check(head, rows)
    esc = [[c.replace("|", "\\|") for c in r] for r in rows]
    return tabulate(esc, headers=list(head), tablefmt="pipe", disable_numparse=True, colalign=_align(head, left))


def wrap_cell(text: str, width: int) -> str:
    """``text`` broken at spaces into lines of at most ``width`` characters (for long notes)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text
