"""Every code block of the README, the docs site and the module docstrings runs as written.

- Markdown fences (README.md, docs/**/*.md): ``python`` blocks are executed, each on its
  own in a fresh namespace in a scratch directory (so every block must stand alone);
  ``bash`` blocks are checked line by line: a ``carioca`` command must parse with the
  real argument parser, a ``make`` target must exist, ``pip install`` extras must be
  declared, other commands must be installed.
- Module docstrings: reST literal blocks (``::``) are executed the same way when they
  are Python, parsed when they are JSON, and checked as above when they are shell
  lines; ``>>>`` examples run through :mod:`doctest`.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from package_dirs import PACKAGE_DIRS, module_name, source_files

ROOT = Path(__file__).resolve().parents[1]
SHELL_COMMANDS = ("carioca", "make", "pip", "bash", "mkdocs", "tensorboard", "python", "export", "ray")


@dataclass(frozen=True)
class Block:
    """One code block: where it is and what language it is in."""

    where: str
    lang: str
    code: str

    def __str__(self) -> str:
        return self.where


_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def markdown_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with their line numbers."""
    text = path.read_text()
    out = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(Block(f"{path.relative_to(ROOT)}:{line}", m.group(1) or "text", m.group(2)))
    return out


def _classify(code: str) -> str:
    code = code.replace("\\\n", " ")  # a continued shell line is one command
    lines = [ln for ln in code.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if lines and all(ln.split()[0] in SHELL_COMMANDS for ln in lines):
        return "bash"
    if code.lstrip().startswith("{"):
        return "json"
    if re.match(r"\s*\[[\w.\"-]+\]\s*$", code.lstrip().splitlines()[0]):
        return "toml"  # a pyproject.toml table
    return "python"


def docstring_blocks(module_name: str) -> list[Block]:
    """The reST literal blocks (after a line ending in ``::``) of a module's docstring."""
    module = importlib.import_module(module_name)
    doc = module.__doc__ or ""
    lines = doc.splitlines()
    out = []
    i = 0
    while i < len(lines):
        if lines[i].rstrip().endswith("::"):
            base = len(lines[i]) - len(lines[i].lstrip())
            j = i + 1
            body = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
                body.append(lines[j])
                j += 1
            code = textwrap.dedent("\n".join(body)).strip("\n") + "\n"
            out.append(Block(f"{module_name} docstring, line {i + 2}", _classify(code), code))
            i = j
        else:
            i += 1
    return out


def _modules() -> list[str]:
    names = []
    for package in PACKAGE_DIRS:
        names += [module_name(path) for path in source_files(package)]
    return names


def all_blocks() -> list[Block]:
    """Every block this test checks."""
    blocks = markdown_blocks(ROOT / "README.md")
    for path in sorted((ROOT / "docs").rglob("*.md")):
        blocks += markdown_blocks(path)
    for module in _modules():
        blocks += docstring_blocks(module)
    return blocks


BLOCKS = all_blocks()


def test_the_docs_have_code_blocks():
    langs = {b.lang for b in BLOCKS}
    assert {"python", "bash"} <= langs
    assert len([b for b in BLOCKS if b.lang == "python"]) >= 10
    unknown = [str(b) for b in BLOCKS if b.lang not in ("python", "bash", "json", "text", "toml", "yaml")]
    assert unknown == [], "a block in a language this test does not check"


def _one_torch_thread() -> None:
    # The machine's cores are shared: torch's default of one thread per core makes a
    # 256-step MaskablePPO block take a minute instead of two seconds under load.
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(1)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "python"], ids=str)
def test_python_block_runs(block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _one_torch_thread()
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    exec(compile(block.code, str(block), "exec"), {"__name__": "__docs__"})


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "json"], ids=str)
def test_json_block_parses(block: Block):
    assert isinstance(json.loads(block.code), dict)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "toml"], ids=str)
def test_toml_block_parses(block: Block):
    assert tomllib.loads(block.code)


def _makefile_targets() -> set[str]:
    return set(re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), re.M))


def _declared_extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def check_shell_line(line: str) -> None:
    """Raise AssertionError unless the command line names what exists."""
    words = shlex.split(line, comments=True)
    if not words:
        return
    cmd, args = words[0], words[1:]
    if cmd == "carioca":
        from carioca_experiments.cli import build_parser

        parser, _ = build_parser()
        try:
            parser.parse_args(args)
        except SystemExit as stop:  # --help / --version exit 0; a bad flag exits 2
            assert stop.code == 0, f"carioca rejects {line!r}"
    elif cmd == "make":
        assert set(args) <= _makefile_targets(), f"no such make target in {line!r}"
    elif cmd == "pip":
        extras = {e for a in args for e in re.findall(r"\[([\w,-]+)\]", a) for e in e.split(",")}
        assert extras <= _declared_extras(), f"undeclared extra in {line!r}"
    elif cmd == "bash":
        assert (ROOT / args[0]).is_file(), f"no script {args[0]}"
    elif cmd == "python" and args[:1] == ["-m"]:
        assert importlib.util.find_spec(args[1]) is not None, f"no module to run in {line!r}"
    elif cmd == "python":  # a script of the repository (examples/)
        assert args and args[0].endswith(".py") and (ROOT / args[0]).is_file(), f"no script to run in {line!r}"
    elif cmd == "export":
        assert all(re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", a) for a in args), f"not NAME=value in {line!r}"
    else:
        assert shutil.which(cmd) or (Path(sys.executable).parent / cmd).exists(), f"{cmd} is not installed"


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang == "bash"], ids=str)
def test_shell_block_names_real_commands(block: Block):
    # a trailing backslash continues the command on the next line, as the shell reads it
    for line in block.code.replace("\\\n", " ").splitlines():
        check_shell_line(line)


def test_a_wrong_shell_line_is_caught():
    with pytest.raises(AssertionError):
        check_shell_line("carioca tournament --no-such-flag")
    with pytest.raises(AssertionError):
        check_shell_line("make no-such-target")
    with pytest.raises(AssertionError):
        check_shell_line('pip install "carioca-env[nonexistent]"')
    with pytest.raises(AssertionError):
        check_shell_line("python examples/no_such_example.py")


@pytest.mark.parametrize("module", _modules())
def test_doctest_examples_pass(module: str):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def _griffe_rest():
    """docs/griffe_rest.py, the mkdocstrings extension (it lives beside the site, not in a package)."""
    spec = importlib.util.spec_from_file_location("griffe_rest", ROOT / "docs" / "griffe_rest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rest_markup_is_rewritten_as_markdown():
    rest = _griffe_rest().rest_to_markdown
    # a role: the name in code inside an optional cross-reference, `~` keeping the last part
    out = rest("Returns a :class:`~carioca_env.view.PlayerView` and calls :meth:`Game.apply`.")
    assert ":class:" not in out and ":meth:" not in out
    assert '<autoref identifier="carioca_env.view.PlayerView" optional><code>PlayerView</code></autoref>' in out
    assert "<code>Game.apply()</code>" in out
    assert rest("a ``literal`` here") == "a `literal` here"
    # markup broken across lines is still one literal, one role
    assert rest("- ``determinize(seat,\n  rng)`` (:mod:`carioca_env.\n  determinize`)") == (
        "- `determinize(seat,\n  rng)` (<autoref identifier=\"carioca_env.determinize\" optional>"
        "<code>carioca_env.determinize</code></autoref>)")
    # a literal block: the colon kept once, the block fenced with its language
    out = rest("Usage::\n\n    carioca demo\n\nAfter.")
    assert out.splitlines()[:4] == ["Usage:", "", "```bash", "carioca demo"] and "```" in out.splitlines()[4]
    out = rest("or from Python::\n\n    x = 1\n    print(x)\n")
    assert "```python\nx = 1\nprint(x)\n```" in out and "::" not in out
    # a definition list entry: the term in bold, its body no longer indented (not a code block)
    out = rest("Agents\n    Each agent is a spec.\n\n    A second paragraph.\n\nNext.")
    assert out.splitlines()[:3] == ["**Agents**", "", "Each agent is a spec."] and "A second paragraph." in out.splitlines()
    # a doctest: a fenced pycon block, not a nested quote
    assert rest(">>> 1 + 1\n2\n").startswith("```pycon\n>>> 1 + 1\n2\n```")
    # a simple table: a Markdown table, a continuation line joined to its row, a long cell kept whole
    table = "=====  ==========\nmove   notation\n=====  ==========\nopen   ``open 8C 8D 8H``\n       (R6)\nswap   ``swap 5S``\n=====  ==========\n"
    assert rest(table).strip().splitlines() == ["| move | notation |", "|---|---|", "| open | `open 8C 8D 8H` (R6) |",
                                                "| swap | `swap 5S` |"]
    # Google sections and fenced blocks are left alone
    assert rest("Args:\n    seat: the seat.") == "Args:\n    seat: the seat."
    assert rest("```text\n``raw`` :class:`X`\n```") == "```text\n``raw`` :class:`X`\n```"


# a role, a double backtick, a cross-reference that ended up as text (inside a code span), a
# simple table's border
RAW_REST = re.compile(r":(?:mod|class|func|meth|attr|data|exc|obj):|``|&lt;/?autoref|<autoref|={4,} +={4,}")


def test_the_strict_site_build_renders_no_raw_rest(tmp_path: Path):
    """The API reference renders the docstrings' reST: no role or double backtick reaches the HTML."""
    mkdocs = Path(sys.executable).parent / "mkdocs"
    site = tmp_path / "site"
    build = subprocess.run([str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(site)], cwd=ROOT,
                           capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert build.returncode == 0, build.stderr[-3000:]
    pages = sorted(site.rglob("*.html"))
    api = [p for p in pages if "api" in p.relative_to(site).parts]
    assert len(api) >= 4
    assert sum(p.read_text().count('class="autorefs autorefs-internal"') for p in api) >= 100  # roles became links
    raw = {str(p.relative_to(site)): RAW_REST.findall(p.read_text()) for p in pages}
    assert {k: v for k, v in raw.items() if v} == {}


def test_sub_command_help_ends_with_its_text_not_a_rest_marker():
    from carioca_experiments.cli import build_parser

    parser, _ = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subparsers.choices.items():
        text = sub.format_help()
        assert "Usage::" not in text and not text.rstrip().endswith("::"), name
    for name in ("imitate", "improve"):
        assert f"carioca {name} --" in subparsers.choices[name].format_help().split("examples:", 1)[1]


def test_the_readme_is_a_front_page_whose_links_resolve():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 250  # guides live in docs/, measurements in docs/results/
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert len(local) >= 20
    assert [link for link in local if not (ROOT / link).exists()] == []


def test_every_docs_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text().split("\nnav:", 1)[1]
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert {p for p in pages if p not in nav} == set()
