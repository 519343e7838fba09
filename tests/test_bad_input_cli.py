"""Catalogue of bad command lines: every sub-command exits with a status other than 0
and one paragraph on stderr, never a traceback, and leaves the files it was given as they
were; ``carioca play`` interrupted anywhere leaves a record of the position reached."""

from __future__ import annotations

import io
import os
import random
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from carioca_env import Game, GameConfig
from carioca_env.view import Phase
from carioca_experiments import cli
from carioca_experiments.apps import play

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "agents" / "models" / "contract1"


def _setup(d: Path) -> dict[str, str]:
    """Files the bad command lines point at."""
    (d / "a_file").write_text("x\n")
    (d / "folder").mkdir()
    (d / "corrupt").mkdir()
    (d / "corrupt" / "model.zip").write_bytes(b"not a zip")
    (d / "corrupt" / "model.json").write_text("{broken")
    game = Game(GameConfig(num_players=2, deals=(1,)), seed=1)
    game.apply(game.legal_moves()[0])
    game.save(d / "game.json")
    rec = (d / "game.json").read_text()
    (d / "ints.json").write_text(rec.replace('"seed": 1', '"seed": 1, "deck": [' + ", ".join(["0"] * 108) + '], "dealer": 0'))
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (d / "seedless.json").write_text(rec.replace('"seed": 1, ', ""))
    names = ("a_file", "folder", "corrupt", "game.json", "ints.json", "deep.json", "seedless.json")
    return {k.removesuffix(".json"): str(d / k) for k in names}


#: (argv with {placeholders}, exit status or None for "not 0", words on stderr); every refusal
#: exits 2, as argparse does, through carioca_experiments.cli's one error path
BAD_COMMANDS = [
    ("demo --players 5", 2, ["--players", "invalid choice: 5"]),
    ("demo --players 1", 2, ["--players"]),
    ("demo --contracts 8", 2, ["--contracts", "invalid choice: 8"]),
    ("demo --deals 8", 2, ["--deals", "invalid choice: 8"]),
    ("demo --contracts 0", 2, ["--contracts"]),
    ("demo --stop-after -1", 2, ["--stop-after", ">= 1", "-1"]),
    ("demo --stop-after 0", 2, ["--stop-after"]),
    ("demo --stop-after x", 2, ["--stop-after"]),
    ("demo --seed x", 2, ["--seed"]),
    ("play --players 1", 2, ["--players", "invalid choice: 1"]),
    ("play --players 5", 2, ["--players"]),
    ("play --contracts 8", 2, ["--contracts"]),
    ("play --deals 0", 2, ["--deals"]),
    ("play --seat -1", 2, ["--seat"]),
    ("play --seat 2 --save {folder}/s.json", 2, ["--seat must be 0..1"]),
    ("play --bots bogus --save {folder}/s.json", 2, ["--bots 'bogus'", "unknown agent"]),
    ("play --bots ppo --save {folder}/s.json", 2, ["--bots 'ppo'", "needs a model"]),
    ("play --bots ppo:{folder}/missing --save {folder}/s.json", 2, ["ppo:", "no model file"]),
    ("play --bots ppo:{corrupt} --save {folder}/s.json", 2, ["ppo:", "builds no agent"]),
    ("play --bots ppo:" + str(MODEL) + " --players 3 --save {folder}/s.json", 2, ["made for 2 players", "3"]),
    ("play --bots random --save {folder}", 2, ["--save", "is a folder"]),
    ("play --bots random --save {a_file}/sub.json", 2, ["--save", "cannot be written"]),
    ("replay {folder}/missing.json", 2, ["cannot read a game record", "No such file"]),
    ("replay {folder}", 2, ["cannot read a game record"]),
    ("replay {a_file}", 2, ["cannot read a game record"]),
    ("replay {ints}", 2, ["deck", "notations"]),
    ("replay {deep}", 2, ["nests too deeply"]),
    ("replay {seedless}", 2, ["seed"]),
    ("replay {game} --seat 2", 2, ["--seat must be 0..1"]),
    ("replay {game} --seat -1", 2, ["--seat"]),
    ("bench --quick --only engine --out {folder}", 2, ["--out", "is a folder"]),
    ("bench --quick --only engine --out {a_file}/b.json", 2, ["--out", "cannot be written"]),
    ("tournament --quick --no-progress --out {a_file}/sub", None, ["a_file"]),
    ("train --steps 10 --out {a_file}/sub", None, ["a_file"]),
    ("train-all --quick --out {a_file}/sub", None, ["a_file"]),
    ("improve --contract 9 --out {folder}/r", 2, ["--contract must be an integer 1..7", "9"]),
    ("improve --reshuffles 0 --out {folder}/r", 2, ["--reshuffles must be an integer >= 1", "0"]),
    ("improve --init {folder}/missing --out {folder}/r", 2, ["--init", "no model file"]),
    ("improve --init contract1 --contract 2 --out {folder}/r", 2, ["--init contract1", "not on contract 2"]),
    ("improve --workers 0 --out {folder}/r", 2, ["--workers", "expected an integer >= 1, got 0"]),
    ("improve --opponents bogus --out {folder}/r", 2, ["--opponents: cannot build agent 'bogus'"]),
    ("nosuchcommand", 2, ["invalid choice"]),
]


def _main(argv: list[str], monkeypatch, stdin: str = "quit\n") -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        return cli.main(argv)
    except SystemExit as exc:  # argparse: usage and status 2
        return int(exc.code)


@pytest.mark.parametrize("command, status, words", BAD_COMMANDS, ids=[c[0][:50] for c in BAD_COMMANDS])
def test_a_bad_command_line_exits_with_one_paragraph_and_no_traceback(tmp_path, monkeypatch, capsys, command, status, words) -> None:
    paths = _setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    started = time.monotonic()
    code = _main(command.format(**paths).split(), monkeypatch)
    out, err = capsys.readouterr()
    assert code != 0 if status is None else code == status, (code, err)
    assert "Traceback" not in err + out
    for w in words:
        assert w.format(**paths) in err, (w, err)
    if code == 2:
        assert err.count("error:") == 1 and len(err.strip().splitlines()[-1]) < 2100
    after = {p.name: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert {k: v for k, v in after.items() if k in before} == before, "a file it was given changed"
    if command.startswith("bench"):
        assert time.monotonic() - started < 20, "bench measured before checking --out"


def test_deals_still_works_in_play_and_demo_with_a_deprecation_message(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert _main(["demo", "--deals", "2", "--stop-after", "2"], monkeypatch) == 0
    out, err = capsys.readouterr()
    assert "--deals is deprecated" in err and "--contracts" in err and "contracts [2]" in out
    assert _main(["play", "--deals", "3", "--bots", "random", "--save", "p.json"], monkeypatch) == 0
    assert "--deals is deprecated" in capsys.readouterr().err
    assert Game.load(tmp_path / "p.json").config.deals == (3,)


def test_replay_into_a_closed_pipe_exits_quietly(tmp_path) -> None:
    game = Game(GameConfig(num_players=2), seed=2)
    while not game.game_over and len(game.moves) < 3000:  # a replay far longer than a pipe's buffer
        game.apply(game.legal_moves()[-1])
    game.save(tmp_path / "g.json")
    shell = f"{sys.executable} -m carioca_experiments.cli replay {tmp_path / 'g.json'} | head -1"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.startswith("record:") and done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 141


def test_a_real_process_reports_an_error_without_a_traceback(tmp_path) -> None:
    done = subprocess.run([sys.executable, "-m", "carioca_experiments.cli", "play", "--bots", "bogus", "--save", str(tmp_path / "s.json")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, input="quit\n")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("carioca play: error: --bots 'bogus'")
    assert not (tmp_path / "s.json").exists()


# ------------------------------------------------------------ play interrupted


class _Person(io.TextIOBase):
    """Answers the first listed move ``answers`` times, then ends: Ctrl-C or end of input."""

    def __init__(self, answers: int, ending: str, seed: int) -> None:
        self.left = answers
        self.ending = ending
        self.rng = random.Random(seed)

    def readline(self, size: int = -1) -> str:
        if self.left == 0:
            if self.ending == "sigint":
                raise KeyboardInterrupt
            return ""
        self.left -= 1
        return self.rng.choice(["1\n", "1\n", "2\n", "nonsense\n"])


def _check_record_at_the_prompt(path: Path, screen: str, seat: int) -> Game:
    """The record replays to the position of the last prompt: the person to act, with the
    legal moves the screen listed last."""
    game = Game.load(path)
    assert game.current_player == seat and game.phase in (Phase.DRAW, Phase.PLAY, Phase.DISCARD)
    listing = screen[screen.rfind("legal moves:"):]
    shown = re.findall(r"^\s+\d+\. (.+)$", listing, flags=re.M)
    assert shown == [str(m) for m in game.legal_moves()]
    return game


@pytest.mark.parametrize("ending", ["sigint", "eof"])
def test_play_interrupted_at_random_moves_leaves_a_record_of_the_position(tmp_path, ending) -> None:
    rng = random.Random(ending)
    tried = 0
    for trial in range(12):
        answers = rng.randrange(0, 60)
        path = tmp_path / f"{trial}.json"
        screen = io.StringIO()
        args = play.argparse.Namespace(players=rng.choice([2, 3]), bots=["random", "greedy"], contracts=[1, 2],
                                       seat=0, seed=trial, save=path)
        code = play.run(args, stdin=_Person(answers, ending, trial), stdout=screen)
        assert code == (130 if ending == "sigint" else 0)
        text = screen.getvalue()
        if "Game over" in text:
            assert Game.load(path).game_over
            continue
        _check_record_at_the_prompt(path, text, 0)
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], "a temporary file was left"
        tried += 1
    assert tried >= 8


def _read_until(proc: subprocess.Popen, text: str, count: int, timeout: float = 60) -> str:
    out = b""
    deadline = time.monotonic() + timeout
    while out.decode(errors="replace").count(text) < count:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"timed out waiting for {count}x {text!r}: {out[-500:]!r}"
        chunk = os.read(proc.stdout.fileno(), 65536)
        assert chunk, f"the process ended early: {out[-500:]!r}"
        out += chunk
    return out.decode()


@pytest.mark.parametrize("answers", [0, 7])
def test_sigint_to_a_real_carioca_play_process_at_the_prompt_saves_the_position(tmp_path, answers) -> None:
    path = tmp_path / "g.json"
    proc = subprocess.Popen([sys.executable, "-m", "carioca_experiments.cli", "play", "--bots", "random", "--contracts", "1",
                             "--seed", "4", "--save", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            # a test runner may ignore SIGINT, and children inherit that: restore it
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        proc.stdin.write(b"1\n" * answers)
        proc.stdin.flush()
        screen = _read_until(proc, "your move", answers + 1)
        time.sleep(0.2)  # the process is blocked reading the prompt's answer
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert b"Traceback" not in err
    assert b"interrupted" in rest
    _check_record_at_the_prompt(path, screen, 0)


def test_catalogue_counts() -> None:
    assert len(BAD_COMMANDS) >= 36


def test_study_scripts_exit_130_on_ctrl_c_and_keep_other_tracebacks() -> None:
    """``run_script``, the ``python -m`` study scripts' body runner: Ctrl-C is exit 130, an
    int is the exit status, and any other error propagates (these are developers' tools)."""

    def interrupted() -> None:
        raise KeyboardInterrupt

    def broken() -> None:
        raise ValueError("a bug")

    assert cli.run_script(interrupted) == cli.EXIT_INTERRUPTED == 130
    assert cli.run_script(lambda: None) == 0
    assert cli.run_script(lambda: 2) == 2
    with pytest.raises(ValueError, match="a bug"):
        cli.run_script(broken)


@pytest.mark.parametrize("module", [
    "carioca_experiments.studies.luck.fit", "carioca_experiments.studies.luck.fit3", "carioca_experiments.studies.luck.measure",
    "carioca_experiments.studies.belief.fit", "carioca_experiments.studies.belief.calibrate", "carioca_experiments.studies.belief.measure",
])
def test_each_study_script_runs_its_body_through_run_script(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each script's ``main`` hands its body to ``run_script`` (so Ctrl-C is 130 in all six)."""
    import importlib

    mod = importlib.import_module(module)
    seen: list[object] = []
    monkeypatch.setattr(mod, "run_script", lambda fn: seen.append(fn) or 7)
    argv = {"carioca_experiments.studies.luck.fit3": ["fit"], "carioca_experiments.studies.luck.measure": ["overhead", "--agents", "heuristic", "greedy"],
            "carioca_experiments.studies.belief.calibrate": ["--seeds", "1"]}.get(module, [])
    assert mod.main(argv) == 7 and len(seen) == 1 and callable(seen[0])
