"""``carioca play`` driven through its standard input, and ``carioca replay`` of records."""

from __future__ import annotations

import argparse
import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from carioca_agents.registry import make_agent
from carioca_env import Game, GameConfig, RecordError
from carioca_experiments.apps import play, replay

ROOT = Path(__file__).resolve().parents[1]


class ScriptedPerson(io.TextIOBase):
    """A person at the terminal: reads the printed legal moves and types an answer.

    Prefers opening and laying off, then the first listed move; every few prompts it first
    types something wrong (nonsense, a number out of range, an illegal move).
    """

    def __init__(self, screen: io.StringIO, seed: int) -> None:
        self.screen = screen
        self.rng = random.Random(seed)
        self.wrong_entries = 0
        self.prompts = 0
        self._owe_answer = False

    def readline(self, size: int = -1) -> str:
        self.prompts += 1
        text = self.screen.getvalue()
        listing = text[text.rfind("legal moves:") :]
        moves = re.findall(r"^\s+(\d+)\. (.+)$", listing, flags=re.M)
        if not self._owe_answer and self.rng.random() < 0.2:
            self._owe_answer = True
            self.wrong_entries += 1
            return self.rng.choice(["hello\n", f"{len(moves) + 5}\n", "discard 9Z\n", "lay 8S 3.2 high\n", "\n"])
        self._owe_answer = False
        for number, notation in moves:
            if notation.startswith(("open", "lay", "swap")):
                return number + "\n"
        discards = [n for n, m in moves if m.startswith("discard")]
        if discards:
            return self.rng.choice(discards) + "\n"
        return moves[0][0] + "\n"


def _args(tmp_path: Path, **over) -> argparse.Namespace:
    base = dict(players=2, bots=["greedy"], contracts=[1], seat=0, seed=3, save=tmp_path / "game.json")
    base.update(over)
    return argparse.Namespace(**base)


def test_play_a_whole_deal_through_stdin_with_wrong_entries(tmp_path: Path) -> None:
    screen = io.StringIO()
    person = ScriptedPerson(screen, seed=1)
    code = play.run(_args(tmp_path), stdin=person, stdout=screen)
    text = screen.getvalue()
    assert code == 0
    assert "Game over." in text and "closed by seat" in text
    assert person.wrong_entries >= 3
    # each wrong entry got an explanation, not a crash
    assert "is not a move" in text or "there is no move number" in text or "is not a card" in text
    record = json.loads((tmp_path / "game.json").read_text())
    game = Game.from_record(record)
    assert game.game_over and record["agents"] == ["you", "greedy"]
    # every line the person typed answered a prompt
    assert text.count("your move (") == person.prompts


def test_quit_saves_the_game_and_it_replays(tmp_path: Path) -> None:
    screen = io.StringIO()
    stdin = io.StringIO("draw stock\n1\nquit\n")
    assert play.run(_args(tmp_path, bots=["random"]), stdin=stdin, stdout=screen) == 0
    assert "game saved to" in screen.getvalue()
    game = Game.load(tmp_path / "game.json")
    assert len(game.moves) >= 2 and not game.game_over


def test_end_of_input_saves_like_quit(tmp_path: Path) -> None:
    screen = io.StringIO()
    assert play.run(_args(tmp_path, bots=["random"]), stdin=io.StringIO(""), stdout=screen) == 0
    assert (tmp_path / "game.json").exists()


def test_play_command_line_through_a_real_pipe(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "carioca_experiments.cli", "play", "--bots", "random", "--players", "3",
         "--seed", "5", "--save", str(tmp_path / "g.json")],
        input="draw discard\nnonsense\ndiscard JK\n1\nquit\n", capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "unknown verb 'nonsense'" in out.stdout
    assert Game.load(tmp_path / "g.json").num_players == 3


def _agent_game(spec: str, seed: int) -> tuple[Game, list[str]]:
    game = Game(GameConfig(num_players=2, deals=(1, 2)), seed=seed)
    agents = [make_agent(spec, seed), make_agent("greedy", seed + 1)]
    while not game.game_over:
        seat = game.current_player
        game.apply(agents[seat].act(game.view(seat), game.legal_moves()))
    return game, [spec, "greedy"]


@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_replay_checks_and_prints_records_of_agent_games(spec: str, tmp_path: Path) -> None:
    game, names = _agent_game(spec, 4)
    path = tmp_path / "r.json"
    game.save(path, agents=names)
    out = io.StringIO()
    assert replay.run(argparse.Namespace(record=path, seat=None, quiet=False), out=out) == 0
    text = out.getvalue()
    assert "every move legal, scores match" in text
    assert text.count("== deal") == len(game.deal_results)
    seat_view = io.StringIO()
    replay.replay(json.loads(path.read_text()), seat_view, seat=1)
    assert "your hand (seat 1)" in seat_view.getvalue()
    assert "your hand (seat 0)" not in seat_view.getvalue() and "hands:" not in seat_view.getvalue()


def test_replay_refuses_edited_truncated_and_foreign_records(tmp_path: Path) -> None:
    game, names = _agent_game("random", 9)
    record = game.to_record(names)

    edited = json.loads(json.dumps(record))
    i = next(k for k, m in enumerate(edited["moves"]) if m.startswith("discard"))
    edited["moves"][i] = "discard JK" if edited["moves"][i] != "discard JK" else "discard 2S"
    with pytest.raises(RecordError, match=rf"move {i + 1} .* does not replay"):
        replay.replay(edited, io.StringIO())

    truncated = json.loads(json.dumps(record))
    truncated["moves"] = truncated["moves"][: len(truncated["moves"]) // 2]
    with pytest.raises(RecordError, match="differ"):
        replay.replay(truncated, io.StringIO())

    other_version = dict(record, version=99)
    with pytest.raises(RecordError, match="version 99 is not supported"):
        replay.replay(other_version, io.StringIO())

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = io.StringIO()
    with pytest.raises(RecordError, match="cannot read a game record"):
        replay.run(argparse.Namespace(record=bad, seat=None, quiet=True), out=out)
    assert out.getvalue() == ""


def test_tournament_keeps_sampled_records_that_replay(tmp_path: Path) -> None:
    from carioca_experiments.evaluation.tournament import TournamentConfig, read_results, run_tournament

    config = TournamentConfig(agents=("heuristic", "random"), players=2, contracts=(1, 2), decks=2, max_turns=300)
    run_tournament(config, tmp_path, workers=1, progress=False, write_summary=False, log=lambda m: None, record_every=3)
    files = sorted((tmp_path / "records").glob("*.json"))
    results = read_results(tmp_path / "results.jsonl").records
    kept = [r for r in results.values() if r["index"] % 3 == 0]
    assert len(files) == len(kept) > 0
    for rec in kept:
        record = json.loads((tmp_path / "records" / f"{rec['task']}.json").read_text())
        game = replay.replay(record, io.StringIO(), quiet=True)
        if not rec["truncated"]:
            assert list(game.deal_results[-1].scores) == rec["penalty"]
