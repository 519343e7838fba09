"""The results index parses, and it links every results page once.

``docs/results/index.md`` holds two Markdown tables: the current pages (one per topic,
where it stands now) and the dated pages (history, one row per page, by date).  The
tables are read as GitHub-flavoured Markdown reads them: a header row, a delimiter row,
then every line up to the next blank line is a row, split into cells at each unescaped
``|``.  A row whose cell count differs from the header's is a broken table (two rows
joined on one line, a row cut in two), which a renderer pads or drops without a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
INDEX = RESULTS / "index.md"

#: the header of each table of the index
CURRENT_HEADER = ["topic", "page", "where it stands"]
HISTORY_HEADER = ["date", "page", "what it measured"]
#: a dated page's file name: the date it was measured, then its subject
DATED = re.compile(r"^(\d{4}-\d\d-\d\d)-[\w.-]+\.md$")
#: a Markdown link's target (without its #anchor)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")
_DELIMITER = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass
class Table:
    """One Markdown table: its header's cells and its rows' cells, with line numbers."""

    line: int
    header: list[str]
    rows: list[tuple[int, list[str]]]


def split_row(line: str) -> list[str]:
    """The cells of a table line: split at every ``|`` not escaped by a backslash, the
    leading and trailing pipe dropped, as GitHub-flavoured Markdown splits a row."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", text)]


def parse_tables(text: str) -> list[Table]:
    """Every table of a Markdown text: a line with a pipe followed by a delimiter row,
    and the lines after it up to a blank line (each of those is a row, whatever it holds)."""
    lines = text.splitlines()
    tables = []
    i = 0
    while i < len(lines) - 1:
        if "|" in lines[i] and _DELIMITER.match(lines[i + 1].strip()):
            table = Table(i + 1, split_row(lines[i]), [])
            j = i + 2
            while j < len(lines) and lines[j].strip():
                table.rows.append((j + 1, split_row(lines[j])))
                j += 1
            tables.append(table)
            i = j
        else:
            i += 1
    return tables


def table_problems(text: str) -> list[str]:
    """What is wrong with the shape of a text's tables: rows whose cell count is not the
    header's, or lines of a table that are not a whole row (``| a | b |``)."""
    problems = []
    for table in parse_tables(text):
        for line, cells in table.rows:
            raw = text.splitlines()[line - 1].strip()
            if len(cells) != len(table.header):
                problems.append(f"line {line}: {len(cells)} cells, the header (line {table.line}) has "
                                f"{len(table.header)}")
            elif not (raw.startswith("|") and raw.endswith("|")):
                problems.append(f"line {line}: not a whole row")
    return problems


def links(text: str) -> list[str]:
    """The local targets of a text's Markdown links, in order, repeats kept."""
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+://", t)]


def the_table(text: str, header: list[str]) -> Table:
    """The one table of ``text`` with this header."""
    found = [t for t in parse_tables(text) if [c.lower() for c in t.header] == header]
    assert len(found) == 1, f"expected one table headed {header}, found {len(found)}"
    return found[0]


def results_pages() -> tuple[list[str], list[str]]:
    """The pages of docs/results besides the index: the dated ones and the current ones."""
    names = sorted(p.name for p in RESULTS.glob("*.md") if p.name != "index.md")
    return [n for n in names if DATED.match(n)], [n for n in names if not DATED.match(n)]


INDEX_TEXT = INDEX.read_text(encoding="utf-8")
DATED_PAGES, CURRENT_PAGES = results_pages()


def test_every_row_of_the_index_has_the_headers_number_of_cells() -> None:
    assert parse_tables(INDEX_TEXT)
    assert table_problems(INDEX_TEXT) == []


def test_a_broken_row_is_caught() -> None:
    """The row the index once had: the version-7 row and the search-belief row on one line."""
    broken = "\n".join([
        "| date | page | what it measured |",
        "|---|---|---|",
        "| 2026-12-03 | [A](a.md) | a |",
        "| 2026-12-03",
        "| 2026-12-04 | [v7](v7.md) | the default | | [Search](s.md) | why search lost |",
        "| 2026-12-03 | [B](b.md) | b |",
    ])
    problems = table_problems(broken)
    assert len(problems) == 2 and problems[0].startswith("line 4: 1 cells"), problems
    assert table_problems("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 \\| 4 | 5 |\n") == []  # an escaped pipe is text
    assert table_problems("| a | b |\n|---|---|\n| 1 | 2\n") == ["line 3: not a whole row"]


def test_every_link_of_the_index_is_a_page_that_exists() -> None:
    missing = [t for t in links(INDEX_TEXT) if not (RESULTS / t).resolve().is_file()]
    assert missing == []


def test_every_results_page_is_linked_from_the_index_exactly_once() -> None:
    targets = [t for t in links(INDEX_TEXT) if (RESULTS / t).resolve().parent == RESULTS.resolve()]
    counts = {name: targets.count(name) for name in DATED_PAGES + CURRENT_PAGES}
    assert {name: n for name, n in counts.items() if n != 1} == {}


def test_the_history_table_has_one_row_per_dated_page_dated_as_its_file_and_sorted() -> None:
    table = the_table(INDEX_TEXT, HISTORY_HEADER)
    rows = []
    for line, cells in table.rows:
        assert len(cells) == len(HISTORY_HEADER), f"line {line}: {len(cells)} cells"
        date, targets = cells[0], links(cells[1])
        assert len(targets) == 1, f"line {line}: the page cell links {targets}"
        match = DATED.match(targets[0])
        assert match, f"line {line}: {targets[0]} is not a dated page"
        assert date == match.group(1), f"line {line}: dated {date}, the page is {targets[0]}"
        rows.append((date, targets[0]))
    assert sorted(name for _, name in rows) == DATED_PAGES
    dates = [date for date, _ in rows]
    assert dates == sorted(dates)


def test_the_current_table_links_every_current_page() -> None:
    assert CURRENT_PAGES, "docs/results holds no current page"
    table = the_table(INDEX_TEXT, CURRENT_HEADER)
    linked = [t for _, cells in table.rows for t in links(cells[1])]
    assert sorted(linked) == CURRENT_PAGES
    assert all(cells[0] and cells[2] for _, cells in table.rows)
    # the current pages come before the history
    assert table.line < the_table(INDEX_TEXT, HISTORY_HEADER).line


@pytest.mark.parametrize("page", CURRENT_PAGES)
def test_a_current_page_links_the_dated_pages_it_stands_on(page: str) -> None:
    text = (RESULTS / page).read_text(encoding="utf-8")
    dated = [t for t in links(text) if DATED.match(t)]
    assert dated, f"{page} links no dated page"
    assert [t for t in dated if not (RESULTS / t).is_file()] == []
    assert table_problems(text) == []
