"""Peak resident memory of `tabletop engine gomocup` under several `INFO max_memory` limits.

Run: ``.venv/bin/python benchmarks/gomocup_memory.py [LIMIT ...]`` (bytes; default 1, 0, 200000000,
250000000 and 350000000; 0 means no limit given, 1 the smallest table).  Each limit gets a fresh
engine process: the limit, ``INFO timeout_turn 3000``, START 15, BEGIN and four TURNs; the script
then reads the process's peak resident memory (VmHWM, Linux) and prints it beside the limit.
Run it after ``make setup`` (the kernels compiled and cached), as a Gomocup install would be.
"""

from __future__ import annotations

import sys

from tabletop.bench.gomoku_engine import gomocup_peak_bytes


def main() -> None:
    limits = [int(a) for a in sys.argv[1:]] or [1, 0, 200_000_000, 250_000_000, 350_000_000]
    for limit in limits:
        peak = gomocup_peak_bytes(limit)
        told = "none (default)" if limit == 0 else f"{limit:,} bytes"
        verdict = "" if limit <= 1 else ("  within" if peak <= (limit or 300 * 2**20) else "  OVER")
        print(f"max_memory {told:>22}: peak {peak / 2**20:6.1f} MB ({peak:,} bytes){verdict}")


if __name__ == "__main__":
    main()
