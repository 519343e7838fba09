"""The luck value function's default is named in one place, and every text agrees with it.

:data:`carioca_experiments.evaluation.luck.value.DEFAULT_VERSION` names the default; the
docs, the README, ``pyproject.toml``, the ``--luck-value`` help and the docstrings of the
luck and tournament packages say it in present-tense phrases this test reads (``the
default is version N``, ``version N ... (the default)``, ``N is the default``), and each
must name that version.  Dated results pages are history and are left as written.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from carioca_experiments.cli import build_parser
from carioca_experiments.evaluation.luck import value as value_module
from carioca_experiments.evaluation.luck.value import (
    DEFAULT_VERSION,
    LIVE_VERSIONS,
    SHIPPED_BY_VERSION,
    SHIPPED_FILE,
    STUDY_VERSIONS,
    ValueFileError,
    shipped_value,
    shipped_version,
    value_by_fingerprint,
)

from package_dirs import ROOT

#: present-tense ways of naming the default version; group 1 is the number
PHRASES = (
    re.compile(r"default is version\s+(\d)", re.I),
    re.compile(r"version\s+(\d)\b[^.;\n|]{0,80}\(the default\)", re.I),
    re.compile(r"\b(\d) is the default\b", re.I),
    re.compile(r"default value function,? version\s+(\d)", re.I),
    re.compile(r"\|\s*(\d)\s*\(the default\)\s*\|", re.I),  # a row of a table of versions
)


def _texts() -> dict[str, str]:
    """Every text that may name the default, by where it is."""
    paths = [ROOT / "README.md", ROOT / "pyproject.toml", *sorted((ROOT / "docs").rglob("*.md"))]
    paths += sorted((ROOT / "experiments" / "evaluation" / "luck").glob("*.py"))
    paths += sorted((ROOT / "experiments" / "evaluation" / "tournament").glob("*.py"))
    out = {str(p.relative_to(ROOT)): " ".join(p.read_text(encoding="utf-8").split())
           for p in paths if not re.match(r"\d{4}-\d\d-\d\d-", p.name)}
    parser, _ = build_parser(["tournament"])
    sub = next(a for a in parser._actions if a.dest == "command").choices["tournament"]  # type: ignore[union-attr]
    out["carioca tournament --help"] = " ".join(sub.format_help().split())
    return out


def test_every_text_that_names_the_default_names_the_one_in_the_code() -> None:
    found = []
    for where, text in _texts().items():
        for phrase in PHRASES:
            found += [(where, int(m.group(1)), m.group(0)) for m in phrase.finditer(text)]
    wrong = [f for f in found if f[1] != DEFAULT_VERSION]
    assert not wrong, wrong
    places = {where for where, _, _ in found}
    # not vacuous: the tournament guide, its table, and the option's help all say it
    assert {"docs/tournaments.md", "carioca tournament --help"} <= places, places


def test_the_phrases_catch_a_wrong_default() -> None:
    text = "The default is version 3. | 6 (the default) | value-v6.json | networks |"
    assert sorted(int(m.group(1)) for p in PHRASES for m in p.finditer(text)) == [3, 6]
    assert [int(m.group(1)) for m in PHRASES[1].finditer("version 6's networks, version 3 at 4 players (the default)")]


def test_one_table_of_live_versions_and_the_default_in_it() -> None:
    assert DEFAULT_VERSION in LIVE_VERSIONS and SHIPPED_FILE == SHIPPED_BY_VERSION[DEFAULT_VERSION]
    assert not set(LIVE_VERSIONS) & set(STUDY_VERSIONS)
    assert shipped_value() is shipped_version(DEFAULT_VERSION)
    assert shipped_value().fingerprint.startswith(f"v{DEFAULT_VERSION}-")
    # the files of the live versions ship beside the module, no other value file does
    here = Path(value_module.__file__).parent
    assert sorted(int(p.stem[7:]) for p in here.glob("value-v*.json")) == sorted(LIVE_VERSIONS)


@pytest.mark.parametrize("version", sorted(STUDY_VERSIONS))
def test_a_study_version_is_refused_in_one_line_outside_a_checkout(version: int, monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    """As in the installed package, where the studies (which register them) are absent."""
    monkeypatch.setattr(value_module, "SHIPPED_BY_VERSION",
                        {v: p for v, p in SHIPPED_BY_VERSION.items() if v in LIVE_VERSIONS})
    monkeypatch.setattr(value_module, "_LOADERS",
                        {v: f for v, f in value_module._LOADERS.items() if v in LIVE_VERSIONS})
    study_file = ROOT / "experiments" / "studies" / "luck" / f"value-v{version}.json"
    fingerprint = f"v{version}-000000000000"
    for call in (lambda: shipped_version(version), lambda: value_by_fingerprint(fingerprint),
                 lambda: value_module.load_value(study_file)):
        with pytest.raises(ValueFileError) as info:
            call()
        message = str(info.value)
        assert "\n" not in message and f"version-{version}" in message and "checkout" in message, message
