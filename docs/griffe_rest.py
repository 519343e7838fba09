"""Griffe extension: the reStructuredText inside the docstrings, rewritten as Markdown for the API pages.

The docstrings use Google-style sections (``Args:``, ``Returns:``), which mkdocstrings
parses, and reST inline markup, which Markdown does not know: Sphinx roles
(``:class:`~carioca_env.PlayerView```), double-backtick literals, literal blocks after a
line ending in ``::``, definition lists (a term line with an indented body), simple
tables (``=====`` borders) and doctest sessions (``>>>``). Left alone they reach the HTML as raw text (or a doctest prompt as a
nested quote). This extension rewrites the docstring text when griffe loads each object,
so the source keeps its reST (``help()``, doctest and the docs tests read it) and the
site gets:

- a role: the name in code, linked to its API entry when the site documents it (an
  *optional* mkdocs-autorefs reference, which stays plain code, without a warning, when
  it does not: a role may name something private or outside the reference);
- ````x```` -> ```x```; ``text::`` -> ``text:`` and the literal block as a fenced block;
- a definition list entry -> the term in bold, its body dedented;
- a simple table -> a Markdown table;
- a doctest session -> a fenced ``pycon`` block.

Only prose is rewritten; fenced and literal blocks are kept as they are.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(mod|class|func|meth|attr|data|exc|obj|const):`(~?)([^`<>]+?)`")
DOUBLE_BACKTICKS = re.compile(r"``([^`]+?)``")
_SHELL_WORDS = ("carioca", "pip", "make", "python", "bash", "export", "ray", "mkdocs", "tensorboard", "$")
_LIST_ITEM = re.compile(r"\s*([-*+]|\d+[.)])\s")
_TABLE_BORDER = re.compile(r"^\s*=+( +=+)+\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _resolve(obj: griffe.Object, target: str) -> str:
    """The full path of ``target`` as the object's module sees it (the name itself if unknown)."""
    target = target.strip().removesuffix("()")
    try:
        return obj.resolve(target.split(".")[0]) + target[len(target.split(".")[0]) :]
    except (griffe.NameResolutionError, ValueError, AttributeError, KeyError):
        return target


def rewrite_roles(text: str, obj: griffe.Object | None = None) -> str:
    """Each Sphinx role as an optional cross-reference around the name in code."""

    def one(m: re.Match[str]) -> str:
        kind, short, target = m.group(1), m.group(2), "".join(m.group(3).split())  # may span lines
        title = target.split(".")[-1] if short else target
        if kind in ("func", "meth"):
            title += "()"
        identifier = _resolve(obj, target) if obj is not None else target
        return f'<autoref identifier="{html.escape(identifier)}" optional><code>{html.escape(title)}</code></autoref>'

    return ROLE.sub(one, text)


def _inline(line: str, obj: griffe.Object | None) -> str:
    line = rewrite_roles(line, obj)
    return DOUBLE_BACKTICKS.sub(lambda m: f"`{m.group(1)}`", line)


def _language(code: str) -> str:
    lines = [ln.strip() for ln in code.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    if lines and all(ln.split()[0] in _SHELL_WORDS for ln in lines):
        return "bash"
    if code.lstrip().startswith(("{", "[")):
        return "json"
    return "python"


def _block(lines: list[str], start: int, base: int) -> int:
    """The end (exclusive) of the block indented deeper than ``base`` from ``start`` on."""
    j = start
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
        j += 1
    while j > start and not lines[j - 1].strip():  # trailing blank lines are not the block's
        j -= 1
    return j


def _fence(body: list[str], lang: str, pad: str) -> list[str]:
    cut = min((_indent(ln) for ln in body if ln.strip()), default=0)
    return [f"{pad}```{lang}", *[pad + ln[cut:] if ln.strip() else "" for ln in body], f"{pad}```"]


def _simple_table(lines: list[str], start: int) -> tuple[list[str], int] | None:
    """A reST simple table starting at ``lines[start]`` (its top border) as Markdown rows, and its end.

    The columns are the runs of ``=`` of the top border; a row whose first cell is empty
    continues the row above (its text is appended cell by cell).  ``None`` when the
    lines there are no complete table.
    """
    border = lines[start]
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    borders = [start]
    j = start + 1
    while j < len(lines) and lines[j].strip() and len(borders) < 3:
        if _TABLE_BORDER.match(lines[j]):
            borders.append(j)
        j += 1
    if len(borders) < 2:
        return None
    if len(borders) == 2:  # no header: border, rows, border
        header_end, end = borders[0], borders[1]
    else:
        header_end, end = borders[1], borders[2]

    def cells(line: str) -> list[str]:
        # a column ends where the next begins (the last takes the rest of the line), or
        # later when text runs past that point: a cut never splits a word
        cuts = [0]
        for a, _ in spans[1:]:
            a = max(a, cuts[-1])
            while 0 < a < len(line) and line[a - 1] != " " and line[a] != " ":
                a += 1
            cuts.append(a)
        cuts.append(len(line))
        return [line[a:b].strip() for a, b in zip(cuts, cuts[1:])]

    def rows(a: int, b: int) -> list[list[str]]:
        out: list[list[str]] = []
        for line in lines[a:b]:
            if not line.strip():
                continue
            row = cells(line)
            if out and not row[0]:
                out[-1] = [f"{x} {y}".strip() for x, y in zip(out[-1], row)]
            else:
                out.append(row)
        return out

    head = rows(start + 1, header_end) if header_end != start else [[""] * len(spans)]
    body = rows(header_end + 1, end)
    pad = " " * _indent(border)
    fmt = lambda row: pad + "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"  # noqa: E731
    table = [fmt(head[0] if head else [""] * len(spans)), pad + "|" + "---|" * len(spans)]
    table += [fmt(r) for r in head[1:] + body]
    return ["", *table, ""], end + 1


def rest_to_markdown(text: str, obj: griffe.Object | None = None) -> str:
    """The docstring ``text`` with its reST constructs written as Markdown (see the module docstring)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        if _TABLE_BORDER.match(line) and (table := _simple_table(lines, i)) is not None:
            rows, i = table
            out += rows
            continue
        if stripped.startswith(">>>"):  # a doctest session: up to the next blank line
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out += _fence(lines[i:j], "pycon", " " * _indent(line))
            i = j
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            base = _indent(line)
            head = line.rstrip()[:-2].rstrip()
            if head.strip():
                out.append(head + ":")
            j = _block(lines, i + 1, base)
            body = lines[i + 1 : j]
            while body and not body[0].strip():  # the blank line after "::"
                body = body[1:]
            if body:
                out.append("")
                out += _fence(body, _language("\n".join(body)), " " * base)
            i = j
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        prev_blank = i == 0 or not lines[i - 1].strip()
        if (
            stripped
            and prev_blank
            and _indent(line) == 0
            and nxt.strip()
            and _indent(nxt) > 0
            and not stripped.endswith(":")
            and not _LIST_ITEM.match(line)
        ):  # a definition list entry: term, then its indented body
            j = _block(lines, i + 1, 0)
            body = lines[i + 1 : j]
            cut = min(_indent(ln) for ln in body if ln.strip())
            out.append(f"**{stripped}**")
            out.append("")
            lines[i + 1 : j] = [ln[cut:] if ln.strip() else "" for ln in body]
            i += 1
            continue
        out.append(line)
        i += 1
    return _inline_prose(out, obj)


def _inline_prose(lines: list[str], obj: griffe.Object | None) -> str:
    """The lines with the inline markup of their prose rewritten; fenced blocks kept as they are.

    Runs of prose lines are rewritten as one text, since a literal or a role may be broken
    across lines (````determinize(seat,`` / ``rng)````).
    """
    out: list[str] = []
    prose: list[str] = []
    in_fence = False
    for line in lines:
        if line.strip().startswith("```"):
            if not in_fence and prose:
                out += _inline("\n".join(prose), obj).split("\n")
                prose = []
            in_fence = not in_fence
            out.append(line)
        elif in_fence:
            out.append(line)
        else:
            prose.append(line)
    if prose:
        out += _inline("\n".join(prose), obj).split("\n")
    return "\n".join(out)


def _objects(obj: griffe.Object) -> Any:
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


class RestToMarkdown(griffe.Extension):
    """Rewrite every docstring's reST markup as Markdown once griffe has loaded a package.

    After the whole package, so that a role's short name resolves through the imports of
    the module it is written in.
    """

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # noqa: ARG002
        """Rewrite the docstrings of ``pkg`` and everything in it, in place."""
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rest_to_markdown(obj.docstring.value, obj)
