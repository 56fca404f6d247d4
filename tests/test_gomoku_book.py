"""The Gomoku opening book: every entry found again, under every symmetry, legal, and played by level 10."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop.ai.base import Limit
from tabletop.ai.gomoku import level_player
from tabletop.ai.gomoku.book import (
    BOOK_RULES,
    SYMMETRIES,
    book_move,
    entries,
    line_board,
    position_key,
    preload,
    transform,
)
from tabletop.ai.gomoku.book import HERE as BOOK_DIR
from tabletop.ai.gomoku.engine import GomokuEngine
from tabletop.ai.gomoku.openings import balanced_openings, opening_candidates
from tabletop.games import new_board
from tabletop.games.core import BaseBoard

ALL = [(rule, e) for rule in BOOK_RULES for e in entries(rule)]


def test_both_books_are_there_and_small() -> None:
    for rule in BOOK_RULES:
        assert len(entries(rule)) > 100, rule
    assert preload() == sum(len(entries(rule)) for rule in BOOK_RULES)  # one position an entry
    here = Path(__file__).resolve().parents[1] / "src" / "tabletop" / "ai" / "gomoku"
    assert sum(p.stat().st_size for p in here.glob("book-*.json")) < 1_000_000


@pytest.mark.parametrize("rule", BOOK_RULES)
def test_every_entry_gives_its_own_legal_move_and_no_two_share_a_position(rule: str) -> None:
    keys = set()
    for stones, move, _score, depth in entries(rule):
        board = line_board(rule, stones)
        found = book_move(board)
        assert str(found) == move, " ".join(stones)
        board.push(found)  # legal there, and under renju never a foul of Black's
        assert depth >= 6
        key = position_key(line_board(rule, stones))
        assert key is not None and key[0] not in keys
        keys.add(key[0])


@pytest.mark.parametrize("rule", BOOK_RULES)
def test_every_opening_of_the_match_family_has_a_book_move(rule: str) -> None:
    empty = new_board("gomoku", {"rule": rule, "size": 15})
    for line in opening_candidates(empty):
        assert book_move(line_board(rule, [str(m) for m in line])) is not None, line


@pytest.mark.parametrize("rule", BOOK_RULES)
def test_the_book_plays_each_balanced_opening_on_to_the_eighth_stone(rule: str) -> None:
    """The openings matches are drawn from carry the book's own line two moves further: each side's
    book move answered by the book's, White's fourth stone to White's eighth."""
    empty = new_board("gomoku", {"rule": rule, "size": 15})
    openings = balanced_openings(empty, 10_000, 0)
    assert len(openings) >= 20
    learned = {position_key(line_board(rule, str(e["stones"]).split()))[0]  # type: ignore[index]
               for e in json.loads((BOOK_DIR / f"book-{rule}.json").read_text())["entries"] if e.get("learned")}
    for line in openings:
        board = line_board(rule, [str(m) for m in line])
        end = 8
        while len(board.move_stack) < end:
            if position_key(board)[0] in learned:  # type: ignore[index]
                # a move learned from a lost game: the book goes on for its next two plies
                end = min(end, len(board.move_stack) + 3)
            move = book_move(board)
            assert move is not None, [str(m) for m in board.move_stack]
            board.push(move)
        assert not board.is_game_over()


def test_the_book_answers_every_standard_renju_opening() -> None:
    """The 26 openings of renju's rules (Black on the centre, White next to it, Black's second
    stone within two points of the centre), every reflection of them: White's fourth stone."""
    for dc, dr in ((c, r) for c in (-1, 0, 1) for r in (-1, 0, 1) if (c, r) != (0, 0)):
        for ec, er in ((c, r) for c in range(-2, 3) for r in range(-2, 3) if (c, r) not in ((0, 0), (dc, dr))):
            board = new_board("gomoku", {"rule": "renju", "size": 15})
            for col, row in ((7, 7), (7 + dc, 7 + dr), (7 + ec, 7 + er)):
                board.push(board.move_at(col, row))
            assert book_move(board) is not None, [str(m) for m in board.move_stack]


@given(st.sampled_from(ALL), st.sampled_from(SYMMETRIES))
def test_a_reflected_or_turned_position_gets_the_reflected_move(item: tuple, sym: tuple[bool, bool, bool]) -> None:  # type: ignore[type-arg]
    rule, (stones, move, _score, _depth) = item
    plain = line_board(rule, stones)
    turned = new_board("gomoku", {"rule": rule, "size": 15})
    for name in stones:
        m = plain.parse_move(name)
        turned.push(turned.move_at(*transform(sym, m.col, m.row)))
    m = plain.parse_move(move)
    expected = turned.move_at(*transform(sym, m.col, m.row))
    got = book_move(turned)
    assert got is not None
    if got != expected:
        # a position that is its own mirror image may answer with the mirror of the stored move
        own = position_key(turned)
        assert own is not None
        images = {turned.move_at(*transform(s, got.col, got.row)) for s in SYMMETRIES
                  if _key(_mapped(turned, s)) == own[0]}
        assert expected in images


def _key(board: BaseBoard) -> object:
    found = position_key(board)
    assert found is not None
    return found[0]


def _mapped(board: BaseBoard, sym: tuple[bool, bool, bool]) -> BaseBoard:
    out = new_board("gomoku", {"rule": str(getattr(board, "rule", "freestyle")), "size": 15})
    for m in board.move_stack:
        out.push(out.move_at(*transform(sym, m.col, m.row)))
    return out


def test_positions_outside_the_book_get_nothing() -> None:
    far = line_board("freestyle", ["a1", "o15", "a15"])
    assert book_move(far) is None
    stones, move, _score, _depth = entries("freestyle")[0]
    assert book_move(line_board("standard", stones)) is None  # no book for this rule
    big = new_board("gomoku", {"rule": "freestyle", "size": 19})
    for name in stones:
        big.push(big.parse_move(name))
    assert book_move(big) is None  # nor for another size
    assert book_move(new_board("gomoku", {"rule": "freestyle", "size": 15})) is None


def test_level_10_plays_the_book_move_without_thinking_and_level_9_thinks(monkeypatch: pytest.MonkeyPatch) -> None:
    stones, move, _score, _depth = entries("renju")[0]
    board = line_board("renju", stones)
    calls: list[str] = []
    original = GomokuEngine.analyse

    def counting(self: GomokuEngine, b: BaseBoard, limit: Limit | None = None):  # type: ignore[no-untyped-def]
        calls.append(self.name)
        return original(self, b, limit)

    monkeypatch.setattr(GomokuEngine, "analyse", counting)
    assert str(level_player(10).choose(board, Limit(seconds=0.2))) == move
    assert calls == []
    level_player(9).choose(board, Limit(seconds=0.2))
    assert calls == ["level:9"]


def test_pack_keeps_one_entry_a_position_the_deeper_search(tmp_path: Path,
                                                           load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("build_gomoku_book")
    rows = [
        {"stones": "h8 f10 g11", "move": "f13", "score": -10, "depth": 8, "ranked": ["f13"], "seconds": 1},
        # one position and its mirror image (rows flipped): the deeper search is the one kept
        {"stones": "h8 g9 k7", "move": "e7", "score": 5, "depth": 8, "ranked": ["e7"], "seconds": 1},
        {"stones": "h8 i7 k8", "move": "i9", "score": 3, "depth": 8, "ranked": ["i9"], "seconds": 1},
        {"stones": "h8 i9 k8", "move": "g9", "score": 7, "depth": 10, "ranked": ["g9"], "seconds": 1},
    ]
    assert position_key(line_board("freestyle", ["h8", "i7", "k8"]))[0] == position_key(  # type: ignore[index]
        line_board("freestyle", ["h8", "i9", "k8"]))[0]  # type: ignore[index]
    (tmp_path / "freestyle.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "book.json"
    assert script.main(["pack", "--rule", "freestyle", "--dir", str(tmp_path), "--out", str(out)]) == 0
    book = json.loads(out.read_text())
    assert [(e["stones"], e["move"]) for e in book["entries"]] == [
        ("h8 f10 g11", "f13"), ("h8 g9 k7", "e7"), ("h8 i9 k8", "g9")]
    with pytest.raises(SystemExit, match="no renju.jsonl"):
        script.main(["pack", "--rule", "renju", "--dir", str(tmp_path), "--out", str(out)])


def test_search_refuses_balanced_openings_on_other_rings(load_script: Callable[[str], ModuleType],
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("build_gomoku_book")
    with pytest.raises(SystemExit) as exit_info:
        script.main(["search", "--rule", "renju", "--balanced", "--rings", "1,2", "--dir", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "leave out --rings" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing searched, nothing written


@pytest.mark.parametrize(("option", "value"), [("--fifth-stones", "0"), ("--fifth-stones", "-2"), ("--replies", "0"),
                                               ("--replies", "three")])
def test_search_refuses_a_count_of_moves_below_one(option: str, value: str, load_script: Callable[[str], ModuleType],
                                                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("build_gomoku_book")
    with pytest.raises(SystemExit) as exit_info:
        script.main(["search", "--rule", "renju", option, value, "--dir", str(tmp_path)])
    assert exit_info.value.code == 2
    assert f"argument {option}: a whole number of at least 1, not '{value}'" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_pack_minimax_leaves_a_move_proved_lost_one_ply_deeper_and_keeps_a_close_one(
        tmp_path: Path, load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("build_gomoku_book")
    proven = script.PROVEN
    rows = [
        # White's own choice f13 is a proven win for Black one ply deeper; e12 is not: e12 is kept
        {"stones": "h8 f10 g11", "move": "f13", "score": 40, "depth": 8, "ranked": ["f13", "e12", "d11"]},
        {"stones": "h8 f10 g11 f13", "move": "g12", "score": proven + 20, "depth": 3, "ranked": ["g12"]},
        {"stones": "h8 f10 g11 e12", "move": "g12", "score": 50, "depth": 8, "ranked": ["g12"]},
        # within the margin of two searches the position's own choice stays
        {"stones": "h8 g9 k7", "move": "e7", "score": 5, "depth": 8, "ranked": ["e7", "f7"]},
        {"stones": "h8 g9 k7 e7", "move": "f8", "score": 300, "depth": 8, "ranked": ["f8"]},
        {"stones": "h8 g9 k7 f7", "move": "f8", "score": 300 - script.MARGIN + 1, "depth": 8, "ranked": ["f8"]},
        # past the margin the better child is taken
        {"stones": "h8 h9 k8", "move": "e7", "score": 5, "depth": 8, "ranked": ["e7", "f7"]},
        {"stones": "h8 h9 k8 e7", "move": "f8", "score": 300, "depth": 8, "ranked": ["f8"]},
        {"stones": "h8 h9 k8 f7", "move": "f8", "score": 300 - script.MARGIN - 1, "depth": 9, "ranked": ["f8"]},
        # one proven loss gives way to no other
        {"stones": "h8 j10 k8", "move": "e7", "score": 5, "depth": 8, "ranked": ["e7", "f7"]},
        {"stones": "h8 j10 k8 e7", "move": "f8", "score": proven + 30, "depth": 8, "ranked": ["f8"]},
        {"stones": "h8 j10 k8 f7", "move": "f8", "score": proven + 10, "depth": 8, "ranked": ["f8"]},
    ]
    (tmp_path / "freestyle.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "book.json"
    assert script.main(["pack", "--rule", "freestyle", "--dir", str(tmp_path), "--out", str(out)]) == 0
    plain = {e["stones"]: e["move"] for e in json.loads(out.read_text())["entries"]}
    assert (plain["h8 f10 g11"], plain["h8 h9 k8"]) == ("f13", "e7")  # without --minimax, each search's own
    assert script.main(["pack", "--rule", "freestyle", "--dir", str(tmp_path), "--out", str(out), "--minimax"]) == 0
    book = {e["stones"]: e for e in json.loads(out.read_text())["entries"]}
    assert (book["h8 f10 g11"]["move"], book["h8 f10 g11"]["score"], book["h8 f10 g11"]["depth"]) == ("e12", -50, 9)
    assert book["h8 g9 k7"]["move"] == "e7"
    assert book["h8 j10 k8"]["move"] == "e7"
    assert (book["h8 h9 k8"]["move"], book["h8 h9 k8"]["depth"]) == ("f7", 10)
    assert "h8 f10 g11 f13" not in book  # a win proved within four plies: level 10 finds it itself


def test_search_minimax_tries_other_sixth_stones_where_the_chosen_one_is_proved_lost(
        tmp_path: Path, load_script: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch) -> None:
    """The layers' wiring with a stand-in for the searches: every position ranks the free points
    of a fixed list; White's first-ranked sixth stone is a proven win for Black, so the repair
    searches the next ones and the fifth layer goes on from the second."""
    script = load_script("build_gomoku_book")
    points = ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "a15", "b14", "c13", "d12", "e11"]
    layers: list[list[str]] = []

    def ranked(stones: list[str]) -> list[str]:
        return [p for p in points if p not in stones][:8]

    def fake_layer(rule: str, positions: list[list[str]], args: object, path: Path,
                   done: dict[str, dict[str, object]]) -> None:
        layers.append([" ".join(p) for p in positions])
        for p in positions:
            lost = len(p) == 6 and p[5] == ranked(p[:5])[0]
            done[" ".join(p)] = {"stones": " ".join(p), "move": ranked(p)[0], "score": script.PROVEN + 10 if lost else 0,
                                 "depth": 8, "ranked": ranked(p)}

    monkeypatch.setattr(script, "_run_layer", fake_layer)
    monkeypatch.setattr(script, "_warm", lambda: None)
    monkeypatch.setattr(script, "_openings", lambda *a: [["h8", "h9", "h10"]])
    script.main(["search", "--rule", "renju", "--layers", "5", "--replies", "2", "--fifth-stones", "3",
                 "--minimax", "--dir", str(tmp_path)])
    opening, third, fourth, repair, fifth = layers[0], layers[2], layers[3], layers[4], layers[5]
    assert opening == ["h8 h9 h10"] and len(third) == 3  # three fifth stones, not --replies' two
    assert all(s.split()[5] == ranked(s.split()[:5])[0] for s in fourth)  # then proved lost
    assert len(repair) == 3 * script.REPAIR
    # the fifth layer goes on from the next best sixth stone, after Black's best two seventh stones
    assert len(fifth) == 3 * 2 and all(s.split()[5] == ranked(s.split()[:5])[1] for s in fifth)
    # without --minimax: no repair, and the fifth layer goes on from the searches' own sixth stones
    layers.clear()
    script.main(["search", "--rule", "renju", "--layers", "5", "--replies", "2", "--dir", str(tmp_path / "plain")])
    assert [len(layer) for layer in layers] == [1, 2, 2, 2, 2 * 2]
    assert all(s.split()[5] == ranked(s.split()[:5])[0] for s in layers[-1])


def _game(line: str, a_is_black: bool, a_score: float, rule: str = "renju", size: int | None = None) -> str:
    options: dict[str, object] = {"rule": rule} | ({"size": size} if size else {})
    return json.dumps({"spec": {"game": "gomoku", "options": options},
                       "result": {"a_score": a_score, "a_is_black": a_is_black, "failure": None, "line": line.split()}})


def test_learn_reads_the_lines_side_a_lost_once_each(tmp_path: Path, load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("build_gomoku_book")
    log = tmp_path / "match.jsonl"
    log.write_text("\n".join([
        _game("h8 f10 j9 f8 j8 h9 i8 k8 j10", False, 0.0),
        _game("h8 g9 j7 h9 j9 g10 g7", True, 0.0),
        _game("h8 f10 j9 f8 j8 h9 i8 k8 j10 j7", False, 0.0),  # the same first 8 stones
        _game("h8 h9 h10 f10", True, 1.0),  # won
        _game("h8 h9 h10 f10", True, 0.5),  # drawn
        _game("h8 h9 h10 g10", True, 0.0, rule="freestyle"),  # another rule
        _game("h8 h9 h10 i10", True, 0.0, size=19),  # another board
    ]) + "\n")
    assert script.lost_lines([str(log)], "renju", 8) == [
        (["h8", "f10", "j9", "f8", "j8", "h9", "i8", "k8"], False), (["h8", "g9", "j7", "h9", "j9", "g10", "g7"], True)]
    log.write_text(_game("h8 h9", True, 0.0) + "\n{\"spec\": 3}\n")
    with pytest.raises(SystemExit, match=r"match.jsonl:2: not a game of a match log"):
        script.lost_lines([str(log)], "renju", 8)
    with pytest.raises(SystemExit, match=r"missing.jsonl: cannot read the match log \(No such file or directory\)"):
        script.lost_lines([str(tmp_path / "missing.jsonl")], "renju", 8)


def test_learn_line_deviates_at_the_first_move_proved_lost(load_script: Callable[[str], ModuleType]) -> None:
    """A stand-in for the searches: the opponent is proved to win after White's moves at the
    sixth and eighth stones but not at the fourth.  At the sixth stone White's second-ranked move
    is proved lost too, its third is not: that one is learned, with the positions past it."""
    script = load_script("build_gomoku_book")
    line = ["h8", "f10", "j9", "f8", "j8", "h9", "i8", "k8", "j10", "j7"]
    proven = {" ".join(line[:6]), " ".join(line[:8]), " ".join(line[:5] + ["f9"])}
    searched: list[str] = []

    def analyse(rule: str, stones: list[str], seconds: float) -> dict[str, object]:
        key = " ".join(stones)
        searched.append(key)
        ranked = {" ".join(line[:5]): ["h9", "f9", "j7", "j11"], " ".join(line[:5] + ["j7"]): ["j6", "j10", "j11"]}
        return {"stones": key, "move": ranked.get(key, ["a1"])[0], "score": script.PROVEN + 5 if key in proven else -30,
                "depth": 9, "ranked": ranked.get(key, ["a1", "a2"]), "seconds": seconds}

    row = script.learn_line("renju", line, False, 3.0, 6, 2, analyse=analyse)
    assert (row["stones"], row["move"], row["avoids"], row["score"], row["depth"]) == (
        "h8 f10 j9 f8 j8", "j7", "h9", 30.0, 10)
    assert row["learned_from"] == " ".join(line)
    assert [f["stones"] for f in row["follow"]] == [
        "h8 f10 j9 f8 j8 j7", "h8 f10 j9 f8 j8 j7 j6", "h8 f10 j9 f8 j8 j7 j10"]
    assert len(searched) == len(set(searched))  # no position searched twice
    # every move within reach proved lost: nothing is learned
    proven |= {" ".join(line[:5] + [m]) for m in ("j7", "j11")} | {" ".join(line[:3] + [m]) for m in ("a1", "a2")}
    assert script.learn_line("renju", line, False, 3.0, 6, analyse=analyse)["avoids"] is None
    # White's fourth stone is where the proofs start: the move there is passed over for the next
    proven.add(" ".join(line[:4]))
    proven.discard(" ".join(line[:3] + ["a1"]))
    row = script.learn_line("renju", line, False, 3.0, 6, analyse=analyse)
    assert (row["stones"], row["move"], row["avoids"]) == ("h8 f10 j9", "a1", "f8")
    # no proof on the line at all
    assert script.learn_line("renju", line, True, 3.0, 6, analyse=analyse)["avoids"] is None


def test_pack_puts_a_learned_move_over_the_layers_and_follows_it(tmp_path: Path,
                                                                 load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("build_gomoku_book")
    rows = [{"stones": "h8 f10 j9 f8 j8", "move": "h9", "score": -10, "depth": 10, "ranked": ["h9", "j7"]},
            {"stones": "h8 f10 j9 f8 j8 h9 i8", "move": "k8", "score": -10, "depth": 10, "ranked": ["k8"]}]
    follow = [{"stones": "h8 f10 j9 f8 j8 j7", "move": "j6", "score": 20, "depth": 9, "ranked": ["j6"]},
              {"stones": "h8 f10 j9 f8 j8 j7 j6", "move": "j10", "score": -25, "depth": 9, "ranked": ["j10"]}]
    learned = [{"stones": "h8 f10 j9 f8 j8", "move": "j7", "score": -20, "depth": 10, "avoids": "h9",
                "follow": follow, "learned_from": "h8 f10 j9 f8 j8 h9 i8 k8"},
               {"learned_from": "h8 g9 j7 h9 j9", "avoids": None}]
    (tmp_path / "renju.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "book.json"
    assert script.main(["pack", "--rule", "renju", "--dir", str(tmp_path), "--out", str(out)]) == 0
    assert {e["stones"]: e["move"] for e in json.loads(out.read_text())["entries"]}["h8 f10 j9 f8 j8"] == "h9"
    (tmp_path / "renju-learned.jsonl").write_text("".join(json.dumps(r) + "\n" for r in learned))
    assert script.main(["pack", "--rule", "renju", "--dir", str(tmp_path), "--out", str(out)]) == 0
    book = {e["stones"]: e["move"] for e in json.loads(out.read_text())["entries"]}
    assert [e["stones"] for e in json.loads(out.read_text())["entries"] if e.get("learned")] == ["h8 f10 j9 f8 j8"]
    assert book == {"h8 f10 j9 f8 j8": "j7", "h8 f10 j9 f8 j8 h9 i8": "k8", "h8 f10 j9 f8 j8 j7": "j6",
                    "h8 f10 j9 f8 j8 j7 j6": "j10"}


def test_learn_refuses_lines_longer_than_the_book_holds(load_script: Callable[[str], ModuleType], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script("build_gomoku_book")
    with pytest.raises(SystemExit) as exit_info:
        script.main(["learn", "--rule", "renju", "--games", "x.jsonl", "--stones", "40", "--dir", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--stones: the book holds positions of at most 16 stones, not 40" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("order", "layers"), [(1, True), (-1, True), (1, False), (-1, False)])
def test_pack_passes_over_a_learned_move_another_lost_line_avoids(order: int, layers: bool, tmp_path: Path,
                                                                  load_script: Callable[[str], ModuleType]) -> None:
    """Two lost lines learned j7 and f9 for one position, and the second lost with j7 there: f9
    is the book's move whichever line comes first (the second reached the position reflected),
    whether or not the layers searched the position."""
    script = load_script("build_gomoku_book")
    (tmp_path / "renju.jsonl").write_text(json.dumps(
        {"stones": "h8 f10 j9 f8 j8" if layers else "h8 f10 j9 f8",
         "move": "h9" if layers else "j8", "score": -10, "depth": 10, "ranked": ["h9"]}) + "\n")
    learned = [{"stones": "h8 f10 j9 f8 j8", "move": "j7", "score": -20, "depth": 10, "avoids": "h9",
                "learned_from": "h8 f10 j9 f8 j8 h9 i8"},
               # the same position turned a quarter: j7 there is g6, f9 is i10
               {"stones": "h8 j10 i6 h10 h6", "move": "i10", "score": -20, "depth": 10, "avoids": "g6",
                "learned_from": "h8 j10 i6 h10 h6 g6 h7"}]
    assert position_key(line_board("renju", ["h8", "f10", "j9", "f8", "j8", "j7"]))[0] == position_key(  # type: ignore[index]
        line_board("renju", ["h8", "j10", "i6", "h10", "h6", "g6"]))[0]  # type: ignore[index]
    (tmp_path / "renju-learned.jsonl").write_text("".join(json.dumps(r) + "\n" for r in learned[::order]))
    out = tmp_path / "book.json"
    assert script.main(["pack", "--rule", "renju", "--dir", str(tmp_path), "--out", str(out)]) == 0
    book = json.loads(out.read_text())["entries"]
    assert [(e["stones"], e["move"], e.get("learned")) for e in book] == [("h8 f10 j9 f8", "j8", None)] * (
        not layers) + [("h8 j10 i6 h10 h6", "i10", True)]
