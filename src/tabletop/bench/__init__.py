"""Benchmark targets of ``tabletop bench``; each prints its figures beside a reference run.

:func:`peak_rss_mb` is the one way the benchmarks read a process's peak memory.
"""

from __future__ import annotations

import resource
import sys


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB.

    On Linux it reads ``VmHWM`` from ``/proc/self/status``: ``ru_maxrss`` keeps
    the high-water mark of the process that forked us across ``exec``, so a
    benchmark started from a large process (a test worker) would report that
    process's size instead of its own.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
