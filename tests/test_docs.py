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

import doctest
import importlib
import importlib.util
import json
import re
import shlex
import shutil
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("carioca_env", "agents", "experiments")
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
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            names.append(".".join(parts))
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
        from experiments.cli import build_parser

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
    elif cmd == "python":
        assert args[:1] == ["-m"] and importlib.util.find_spec(args[1]) is not None, f"no module to run in {line!r}"
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


@pytest.mark.parametrize("module", _modules())
def test_doctest_examples_pass(module: str):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
