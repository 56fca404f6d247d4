"""numba's ``njit`` for kernels that call each other with constant arguments.

When one jitted function calls another, numba types the call with its constant arguments as
literal types (``Literal[int](0)``) and compiles the callee again, with its whole call tree, for
every combination of constants it meets: ``_insert(out, keys, 0, -1, q, k)`` and
``_insert(out, keys, n, -1, q, k)`` are two compilations, and a constant passed to Renju's
forbidden-point judgement compiles all its helpers a second time.  :func:`njit_plain` types such
calls with the constants widened to their plain types (``int64``), so each kernel is compiled once
per argument *type*.  The machine code is the same apart from constants the optimiser could have
folded; the first compile of the Gomoku kernels makes 109 versions instead of 150.

Integers narrower than 64 bits are widened to ``int64`` the same way: a point read from an ``int32``
array and one computed in an ``int64`` loop would otherwise compile the callee, and everything it
calls, once for each (Renju's whole forbidden-point judgement twice).  The kernels pass points,
counts and colours this way, whose values an ``int64`` holds unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit, types

__all__ = ["njit_plain"]

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def _plain(numba_type: Any) -> Any:
    """``numba_type`` without its literal value, and as ``int64`` if it is a narrower integer."""
    unliteral: Callable[[Any], Any] = types.unliteral  # numba leaves it untyped
    plain = unliteral(numba_type)
    if isinstance(plain, types.Integer):
        bits: int = plain.bitwidth  # type: ignore[attr-defined]  # set by numba's Integer.__init__
        if bits < 64:
            return types.int64
    return plain


def njit_plain(**options: Any) -> Callable[[_Fn], _Fn]:
    """``njit(**options)`` whose calls from other kernels are typed without literal constants."""

    def wrap(func: _Fn) -> _Fn:
        dispatcher = njit(**options)(func)
        typed = dispatcher.get_call_template

        # numba's function type asks its dispatcher for the call template with the call's
        # argument types and applies it to the types it gets back
        def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            return typed(tuple(_plain(a) for a in args), {k: _plain(v) for k, v in kws.items()})

        dispatcher.get_call_template = get_call_template
        return cast(_Fn, dispatcher)

    return wrap
