"""numba's ``njit`` for kernels that call each other with constant arguments.

When one jitted function calls another, numba types the call with its constant arguments as
literal types (``Literal[int](0)``) and compiles the callee again, with its whole call tree, for
every combination of constants it meets: ``_insert(out, keys, 0, -1, q, k)`` and
``_insert(out, keys, n, -1, q, k)`` are two compilations, and a constant passed to Renju's
forbidden-point judgement compiles all its helpers a second time.  :func:`njit_plain` types such
calls with the constants widened to their plain types (``int64``), so each kernel is compiled once
per argument *type*.  The machine code is the same apart from constants the optimiser could have
folded; the first compile of the Gomoku kernels makes 109 versions instead of 150.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit, types

__all__ = ["njit_plain"]

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def njit_plain(**options: Any) -> Callable[[_Fn], _Fn]:
    """``njit(**options)`` whose calls from other kernels are typed without literal constants."""

    def wrap(func: _Fn) -> _Fn:
        dispatcher = njit(**options)(func)
        typed = dispatcher.get_call_template

        # numba's function type asks its dispatcher for the call template with the call's
        # argument types and applies it to the types it gets back
        def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
            plain: Callable[[Any], Any] = types.unliteral  # numba leaves it untyped
            return typed(tuple(plain(a) for a in args), {k: plain(v) for k, v in kws.items()})

        dispatcher.get_call_template = get_call_template
        return cast(_Fn, dispatcher)

    return wrap
