"""MkDocs hook: tables generated from the code, so the environment pages cannot drift.

A page writes ``<!-- carioca:observation-table 2 -->`` or ``<!-- carioca:action-table 2 -->``
(the number is the player count) and gets the table of :class:`carioca_env.observation.ObsLayout`
or :class:`carioca_env.actions.ActionTable` for that many players.
"""

from __future__ import annotations

import re
from typing import Any

_MARK = re.compile(r"<!-- carioca:(observation|action)-table (\d) -->")


def _observation_table(n: int) -> str:
    from carioca_env.observation import obs_layout

    rows = ["| piece | offset | size | meaning |", "|---|---|---|---|"]
    rows += [f"| `{name}` | {start} | {size} | {meaning} |" for name, start, size, meaning in obs_layout(n).table()]
    return "\n".join(rows)


def _action_table(n: int) -> str:
    from carioca_env.actions import action_table

    table = action_table(n)
    rows = ["| range | ids | count | first id in notation |", "|---|---|---|---|"]
    for kind, r in table.ranges.items():
        rows.append(f"| `{kind.name.lower()}` | {r.start}–{r.stop - 1} | {len(r)} | `{table.action_to_string(r.start)}` |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    """Replace every table marker with the generated table."""
    make = {"observation": _observation_table, "action": _action_table}
    return _MARK.sub(lambda m: make[m.group(1)](int(m.group(2))), markdown)
