"""The Gomoku engine's opening book (``src/tabletop/ai/gomoku/book-RULE.json``) from long searches.

Two commands:

    nice python scripts/build_gomoku_book.py search --rule freestyle --seconds 6 --replies 3 --jobs 2 --dir DATA
    nice python scripts/build_gomoku_book.py search --rule freestyle --seconds 5 --layers 5 --balanced --jobs 2 --dir DATA
    python scripts/build_gomoku_book.py pack --rule freestyle --dir DATA --out src/tabletop/ai/gomoku/book-freestyle.json

``search`` analyses, with level 10's settings at ``--seconds`` a position, three layers of positions
on the 15x15 board: every opening of the match runner's family (:func:`opening_candidates`: Black
on the centre, White near it, Black's second stone on the rule's ring, or on each of ``--rings``;
White to move); each opening after
White's ``--replies`` best answers (Black to move); and each opening after White's best answer and
Black's ``--replies`` best replies (White to move).  Positions are searched through the training
runner (:class:`tabletop.train.books.GomokuBookSearch`) in ``--jobs`` local processes or on a Ray
cluster (``--ray auto|ADDRESS``), each result a checked shard in ``DIR/RULE.shards/``; each result
is appended to ``DIR/RULE.jsonl`` as it ends (the stones in order, the best move, its score,
the depth, the ranked root moves), and a run started again skips the positions already there, so it
can be stopped and resumed.  ``pack`` writes the book: one entry a position, the best move (where
lines meet, the line the deeper layers went on from).  The shipped books come from the commands
above.

Two deeper layers follow the book's own line (``--layers 4`` and ``5``): Black to move after White's
chosen answer, each of Black's best replies and White's chosen sixth stone; and White to move
after each of Black's ``--replies`` best seventh stones there.  ``--balanced`` takes only the
openings matches are drawn from (:func:`balanced_openings`, the same set for every seed), for
which the shipped book carries all five layers.

Two options the shipped books leave off (measured against 618f311 without a gain: see
benchmarks/HISTORY.md): ``--fifth-stones N`` widens the third layer (and so the two after it) to
Black's best N fifth stones.  ``--minimax`` (to ``search`` and ``pack`` alike) takes a move's
worth from the positions searched one ply deeper where they were (:func:`choice`): a move whose
position is a proven win for the opponent gives way to one whose is not, and a move gives way to
another whose position the opponent scores more than ``MARGIN`` lower; the deeper layers follow
those choices, and where White's chosen sixth stone is proved lost at the fourth layer, the
positions after each of White's ``REPAIR`` best sixth stones are searched too.

A third command learns from lost games:

    nice python scripts/build_gomoku_book.py learn --rule renju --games LOG.jsonl --seconds 10 --jobs 2 --dir DATA

``learn`` reads ``tabletop match --log`` files and takes every game side A lost under the rule on
the 15x15 board (once a line, by its first ``--stones`` stones).  Along such a line it finds the
first of A's moves it can prove lost: working back from A's last move before ``--stones`` stones
to the first run of moves whose positions the opponent, searched for ``--seconds``, scores as a
proven win, and back to its start.  At the
earliest of those positions it searches A's ``--width`` best moves one ply deeper and keeps the
first the opponent cannot be proved to win against; where every one is lost it goes back to A's
move before (there the move played led to the lost position, so it is passed over too).  The
position after the learned move and A's position after each of the opponent's ``--replies`` best
answers there are kept too, so the book goes on past it.  Each line's finding is appended to
``DIR/RULE-learned.jsonl`` (a run started again skips the lines already there); ``pack`` puts a
learned move in the book over the move the layers chose for the same position, and the positions
past it where the layers have none.

A layer needs the one before it; ``search`` runs them in order and stops after the layer it has
time for when ``--layers`` is smaller than 5.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tabletop.ai.gomoku.book import MAX_STONES
from tabletop.train.books import PROVEN, GomokuBookSearch, GomokuLearn
from tabletop.train.books import learn_line as learn_line  # where the searches of ``learn`` are
from tabletop.train.runner import backend_from, run


def _warm() -> None:
    """Load the engine's kernels before any position is timed (numba's cache, or a compile)."""
    from tabletop.ai.gomoku.engine import warm_up

    warm_up()


def _openings(rule: str, rings: list[int] | None, balanced: bool = False) -> list[list[str]]:
    from tabletop.ai.gomoku.openings import balanced_openings, opening_candidates
    from tabletop.games import new_board

    board = new_board("gomoku", {"rule": rule, "size": 15})
    out: list[list[str]] = []
    if balanced:
        # the ones the match runner draws from (:func:`balanced_openings` keeps the same set for
        # every seed; only its order changes), in the family's order
        kept = [[str(m) for m in line] for line in balanced_openings(board, 10_000, 0)]
        return [names for names in ([str(m) for m in line] for line in opening_candidates(board)) if names in kept]
    for ring in rings or [None]:  # type: ignore[list-item]
        for line in opening_candidates(board, ring):
            if [str(m) for m in line] not in out:
                out.append([str(m) for m in line])
    return out


# how much better (for the side to move) another searched child must score than the position's own
# choice before the book takes it: two searches of one position differ by a few hundred at this depth
MARGIN = 1_000
# how many of the ranked moves are searched one ply deeper where the book's move is proved lost
REPAIR = 4


def _entry(row: dict[str, object]) -> tuple[str, float, int]:
    """A searched row's move, its score for the side to move and its depth."""
    return str(row["move"]), float(row["score"]), int(row["depth"])  # type: ignore[arg-type,call-overload]


def _found_at_once(row: dict[str, object]) -> bool:
    """A win proved within four plies, or by the threat solvers before any search (depth 0): level
    10 finds it at any time, so the book leaves it out."""
    return int(row["depth"]) <= 4 and float(row["score"]) >= PROVEN  # type: ignore[arg-type,call-overload]


def choice(rows: dict[str, dict[str, object]], stones: str, minimax: bool = False) -> tuple[str, float, int]:
    """The book's move at ``stones``, its score for the side to move and its depth.

    The position's own search chose a move.  With ``minimax``, where the positions after it and
    after other ranked moves were searched too (each a search as long as the parent's, one ply
    deeper), the one whose side to move (the opponent) scores least is taken instead when the
    chosen move's position is a proven win for the opponent, or scores more than ``MARGIN``
    above it; never for another proven win of the opponent's.
    """
    row = rows[stones]
    move, score, depth = _entry(row)
    own = rows.get(f"{stones} {move}") if minimax else None
    if own is None:
        return move, score, depth
    kids = [(float(rows[k]["score"]), i, m) for i, m in enumerate(list(row["ranked"]))  # type: ignore[arg-type,call-overload]
            if (k := f"{stones} {m}") in rows]
    best, _, best_move = min(kids)
    own_score = float(own["score"])  # type: ignore[arg-type]
    if best_move != move and best < PROVEN and (own_score >= PROVEN or own_score - best > MARGIN):
        return best_move, -best, int(rows[f"{stones} {best_move}"]["depth"]) + 1  # type: ignore[call-overload]
    return move, score, depth


def _load(path: Path, field: str = "stones") -> dict[str, dict[str, object]]:
    """The rows of ``path`` (one JSON object a line) by their ``field``; a later row of the same wins."""
    done: dict[str, dict[str, object]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[str(row[field])] = row
    return done


def _run_layer(rule: str, positions: list[list[str]], args: argparse.Namespace, path: Path,
               done: dict[str, dict[str, object]]) -> None:
    todo = [" ".join(p) for p in positions if " ".join(p) not in done]
    print(f"{rule}: {len(positions)} positions in this layer, {len(todo)} to search", flush=True)
    if not todo:
        return
    count = {"n": 0}
    with path.open("a") as out:

        def keep(index: int, payload: bytes, new: bool) -> None:
            row = json.loads(payload)
            if str(row["stones"]) not in done:  # a shard made before a stop that came before this line
                out.write(json.dumps(row) + "\n")
                out.flush()
                done[str(row["stones"])] = row
            count["n"] += 1
            if count["n"] % 10 == 0 or count["n"] == len(todo):
                print(f"  {count['n']}/{len(todo)}", flush=True)

        run(GomokuBookSearch(rule, args.seconds, tuple(todo)), range(len(todo)), path.with_suffix(".shards"),
            backend_from(args.ray, args.jobs), keep)


def search(args: argparse.Namespace) -> None:
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{args.rule}.jsonl"
    done = _load(path)
    _warm()  # fills numba's cache once, before the workers load it
    openings = _openings(args.rule, args.rings, args.balanced)

    def chosen(line: list[str]) -> list[str]:
        """``line`` and the book's move there (:func:`choice`)."""
        return line + [choice(done, " ".join(line), args.minimax)[0]]

    def replies(line: list[str], width: int = args.replies) -> list[list[str]]:
        """``line`` and each of the ``width`` best moves there."""
        return [line + [str(m)] for m in list(done[" ".join(line)]["ranked"])[:width]]  # type: ignore[call-overload]

    _run_layer(args.rule, openings, args, path, done)
    if args.layers >= 2:
        # Black to move after White's best few answers
        _run_layer(args.rule, [r for o in openings for r in replies(o)], args, path, done)
    if args.layers >= 3:
        # White to move after White's chosen answer and Black's best few replies
        third = [r for o in openings for r in replies(chosen(o), args.fifth_stones or args.replies)]
        _run_layer(args.rule, third, args, path, done)
        # the deeper layers follow the book's own moves and the opponent's best few: Black to move
        # after each of those and White's chosen sixth stone; then White to move after each of
        # Black's best seventh stones there
        if args.layers >= 4:
            fourth = [chosen(p) for p in third]
            _run_layer(args.rule, fourth, args, path, done)
            if args.minimax:
                # where that sixth stone is proved lost, the positions after each of White's
                # REPAIR best sixth stones, from which :func:`choice` takes the one Black scores
                # least in; the fifth layer goes on from that choice
                lost = [p for p, f in zip(third, fourth) if float(done[" ".join(f)]["score"]) >= PROVEN]  # type: ignore[arg-type]
                _run_layer(args.rule, [r for p in lost for r in replies(p, REPAIR)], args, path, done)
                fourth = [chosen(p) for p in third]
            if args.layers >= 5:
                _run_layer(args.rule, [r for p in fourth for r in replies(p)], args, path, done)


def lost_lines(paths: list[str], rule: str, stones: int) -> list[tuple[list[str], bool]]:
    """Each game side A lost under ``rule`` on the 15x15 board in the ``tabletop match --log``
    files ``paths``: its first ``stones`` stones and whether A had Black, once a line, most lost first."""
    counts: dict[tuple[str, bool], int] = {}
    for name in paths:
        try:
            texts = Path(name).read_text().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise SystemExit(f"{name}: cannot read the match log ({exc.strerror if isinstance(exc, OSError) else exc})") from None
        for number, text in enumerate(texts, 1):
            if not text.strip():
                continue
            try:
                game = json.loads(text)
                options, result = game["spec"]["options"], game["result"]
                if options.get("rule", "freestyle") != rule or int(options.get("size", 15)) != 15:
                    continue
                if result.get("failure") or float(result["a_score"]) != 0.0:
                    continue
                key = (" ".join(str(m) for m in result["line"][:stones]), bool(result["a_is_black"]))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise SystemExit(f"{name}:{number}: not a game of a match log ({exc!r})") from None
            counts[key] = counts.get(key, 0) + 1
    return [(line.split(), black) for (line, black), _n in sorted(counts.items(), key=lambda kv: -kv[1])]


def learn(args: argparse.Namespace) -> None:
    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{args.rule}-learned.jsonl"
    done = {str(r["learned_from"]) for r in _load(path, "learned_from").values()}
    lines = lost_lines(args.games, args.rule, args.stones)
    todo = [(line, black) for line, black in lines if " ".join(line) not in done]
    print(f"{args.rule}: {len(lines)} lost lines, {len(todo)} to learn from", flush=True)
    if not todo:
        return
    _warm()  # fills numba's cache once, before the workers load it
    with path.open("a") as out:

        def keep(index: int, payload: bytes, new: bool) -> None:
            row = json.loads(payload)
            if str(row["learned_from"]) in done:
                return
            done.add(str(row["learned_from"]))
            out.write(json.dumps(row) + "\n")
            out.flush()
            found = f"{row['stones']}: {row['move']} over {row['avoids']}" if row["avoids"] else "nothing found"
            print(f"  {len(done)} {row['learned_from']}: {found}", flush=True)

        job = GomokuLearn(args.rule, args.seconds, args.width, args.replies,
                          tuple((" ".join(line), black) for line, black in todo))
        run(job, range(len(todo)), path.with_suffix(".shards"), backend_from(args.ray, args.jobs), keep)


def pack(args: argparse.Namespace) -> None:
    rows: dict[str, dict[str, object]] = {}
    for d in args.dir:
        rows.update(_load(Path(d) / f"{args.rule}.jsonl"))
    if not rows:
        raise SystemExit(f"no {args.rule}.jsonl with positions in {', '.join(args.dir)}")
    from tabletop.ai.gomoku.book import line_board, position_key, transform

    # one entry a position: of the lines that reach the same stones (or a reflection of them), the
    # one the deeper layers went on from (so the book's own line goes on as far as they were
    # searched), then the deeper search's, then the first line's.  A win proved within four plies,
    # or by the threat solvers before any search (depth 0), is left out: level 10 finds it at any
    # time (these follow a losing reply among the opponent's best few).
    parents = {stones.rsplit(" ", 1)[0] for stones in rows}

    def rank(stones: str, entry: tuple[str, float, int]) -> tuple[int, int]:
        return (f"{stones} {entry[0]}" in parents, entry[2])

    kept: dict[object, tuple[str, tuple[str, float, int]]] = {}
    for stones, row in sorted(rows.items(), key=lambda kv: (len(kv[0].split()), kv[0])):
        if _found_at_once(row):
            continue
        key = position_key(line_board(args.rule, stones.split()))
        assert key is not None
        entry = choice(rows, stones, args.minimax)
        if key[0] not in kept or rank(stones, entry) > rank(*kept[key[0]]):
            kept[key[0]] = (stones, entry)
    # a move learned from a lost game (:func:`learn_line`) over the layers' move for its position
    learned = [r for d in args.dir for r in _load(Path(d) / f"{args.rule}-learned.jsonl", "learned_from").values()
               if r.get("avoids")]
    # and the positions searched past it, where the layers have none (a proven win within four plies
    # left out as above)
    for row in [f for r in learned for f in r.get("follow", [])]:  # type: ignore[attr-defined]
        key = position_key(line_board(args.rule, str(row["stones"]).split()))
        assert key is not None
        if key[0] not in kept and not _found_at_once(row):
            kept[key[0]] = (str(row["stones"]), _entry(row))
    # where two lost lines learned different moves for one position (searches of one position
    # differ), a move another line showed lost there is passed over; else the later line's
    def point(stones: str, move: str) -> tuple[object, tuple[int, int]]:
        board = line_board(args.rule, stones.split())
        found = position_key(board)
        assert found is not None
        m = board.parse_move(move)
        return found[0], transform(found[1], m.col, m.row)

    avoided = {point(str(r["stones"]), str(r["avoids"])) for r in learned}
    marked: set[str] = set()
    for row in learned:
        here, move = point(str(row["stones"]), str(row["move"]))
        if (here, move) in avoided and here in kept and kept[here][0] in marked:
            continue
        kept[here] = (str(row["stones"]), _entry(row))
        marked.add(str(row["stones"]))
    # a learned entry says so: the book's line ends two plies past it, short of the layers' depth
    entries = [{"stones": s, "move": e[0], "score": e[1], "depth": e[2]} | ({"learned": True} if s in marked else {})
               for s, e in sorted(kept.values(), key=lambda kv: (len(kv[0].split()), kv[0]))]
    seconds = sorted({float(r.get("seconds", 0)) for r in rows.values()})  # type: ignore[arg-type]
    book = {"rule": args.rule, "size": 15, "searched_seconds": seconds, "entries": entries}
    out = Path(args.out)
    tmp = out.with_suffix(".tmp")
    head = json.dumps({k: v for k, v in book.items() if k != "entries"})[:-1]
    lines = ",\n".join(json.dumps(e) for e in entries)
    tmp.write_text(f'{head}, "entries": [\n{lines}\n]}}\n')
    os.replace(tmp, out)
    print(f"{len(entries)} entries written to {out}")


RAY_HELP = "search on a Ray cluster: auto (the one started on this machine) or its address (the extra tabletop[ray])"
MINIMAX_HELP = "take a move over the position's own choice by the searched positions one ply deeper (choice)"


def _positive(text: str) -> int:
    """A count of moves: a whole number of at least 1 (argparse names the option when it is not)."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {text!r}")
    return n


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="build_gomoku_book.py")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("search", help="analyse the book's positions (resumable)")
    s.add_argument("--rule", choices=("freestyle", "renju"), required=True)
    s.add_argument("--seconds", type=float, default=8.0)
    s.add_argument("--replies", type=_positive, default=3)
    s.add_argument("--fifth-stones", type=_positive, default=None,
                   help="how many of Black's best fifth stones the third layer follows (default: --replies)")
    s.add_argument("--layers", type=int, choices=(1, 2, 3, 4, 5), default=3)
    s.add_argument("--balanced", action="store_true",
                   help="only the openings matches are drawn from (balanced_openings), not the whole family")
    s.add_argument("--rings", type=lambda t: [int(x) for x in t.split(",")], default=None,
                   help="rings of Black's second stone, comma-separated (default: the rule's own, as matches use)")
    s.add_argument("--minimax", action="store_true", help=MINIMAX_HELP)
    s.add_argument("--jobs", type=int, default=2, help="local worker processes (not with --ray)")
    s.add_argument("--ray", metavar="auto|ADDRESS", default=None, help=RAY_HELP)
    s.add_argument("--dir", required=True)
    k = sub.add_parser("pack", help="write the book from the analysed positions")
    k.add_argument("--rule", choices=("freestyle", "renju"), required=True)
    k.add_argument("--dir", action="append", required=True)
    k.add_argument("--out", required=True)
    k.add_argument("--minimax", action="store_true", help=MINIMAX_HELP)
    n = sub.add_parser("learn", help="find better moves for the positions of lost games (resumable)")
    n.add_argument("--rule", choices=("freestyle", "renju"), required=True)
    n.add_argument("--games", action="append", required=True, help="a tabletop match --log file (repeatable)")
    n.add_argument("--seconds", type=float, default=10.0)
    n.add_argument("--width", type=_positive, default=6, help="how many of the ranked moves to try at a position")
    n.add_argument("--stones", type=_positive, default=14, help="how far into each lost game to look")
    n.add_argument("--replies", type=_positive, default=2,
                   help="after a learned move, the opponent's best answers the book follows with a move of its own")
    n.add_argument("--jobs", type=int, default=2, help="local worker processes (not with --ray)")
    n.add_argument("--ray", metavar="auto|ADDRESS", default=None, help=RAY_HELP)
    n.add_argument("--dir", required=True)
    args = p.parse_args(argv)
    if args.command == "search" and args.balanced and args.rings:
        p.error("--balanced takes the openings matches are drawn from (the rule's own ring); leave out --rings")
    if args.command == "learn" and args.stones > MAX_STONES:
        p.error(f"--stones: the book holds positions of at most {MAX_STONES} stones, not {args.stones}")
    {"search": search, "pack": pack, "learn": learn}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
