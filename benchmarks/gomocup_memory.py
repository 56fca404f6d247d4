"""Peak resident memory of `tabletop engine gomocup` under several `INFO max_memory` limits.

Run: ``.venv/bin/python benchmarks/gomocup_memory.py [LIMIT ...]`` (bytes; default 1, 0, 200000000,
250000000 and 350000000; 0 means no limit given, 1 the smallest table).  Each limit gets a fresh
engine process: the limit, ``INFO timeout_turn 3000``, START 15, BEGIN and four TURNs; the script
then reads the process's peak resident memory (VmHWM, Linux) and prints it beside the limit.
Run it after ``make setup`` (the kernels compiled and cached), as a Gomocup install would be.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TABLETOP = str(Path(sys.executable).with_name("tabletop"))


def peak_bytes(limit: int) -> int:
    proc = subprocess.Popen([TABLETOP, "engine", "gomocup"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def say(line: str) -> str:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        reply = proc.stdout.readline().strip()
        while reply.startswith(("MESSAGE", "DEBUG")):
            reply = proc.stdout.readline().strip()
        return reply

    try:
        if limit:
            proc.stdin.write(f"INFO max_memory {limit}\n")
        proc.stdin.write("INFO timeout_turn 3000\n")
        say("START 15")
        taken = {say("BEGIN")}
        for move in ("8,8", "6,9", "9,6", "5,5", "10,3"):
            if move not in taken and len(taken) < 9:
                taken.add(move)
                taken.add(say(f"TURN {move}"))
        status = Path(f"/proc/{proc.pid}/status").read_text()
        return 1024 * int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1])
    finally:
        proc.stdin.write("END\n")
        proc.stdin.flush()
        proc.wait(10)


def main() -> None:
    limits = [int(a) for a in sys.argv[1:]] or [1, 0, 200_000_000, 250_000_000, 350_000_000]
    for limit in limits:
        peak = peak_bytes(limit)
        told = "none (default)" if limit == 0 else f"{limit:,} bytes"
        verdict = "" if limit <= 1 else ("  within" if peak <= (limit or 300 * 2**20) else "  OVER")
        print(f"max_memory {told:>22}: peak {peak / 2**20:6.1f} MB ({peak:,} bytes){verdict}")


if __name__ == "__main__":
    main()
