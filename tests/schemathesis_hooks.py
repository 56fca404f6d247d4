"""A check schemathesis runs beside its own (loaded through ``SCHEMATHESIS_HOOKS`` by
``test_openapi.py``): data the schema admits is refused with a 400 only for a rule
no JSON Schema can state, named by its code.

``test_openapi.py`` lets ``positive_data_acceptance`` see a 400 from the
routes where that happens; this check keeps that allowance to those refusals.
"""

from __future__ import annotations

from typing import Any

import schemathesis

# a position that does not fit its board, a move the rules refuse, a SPEC that names no
# player (or an external engine this server does not run), a format the room's game cannot use,
# a seek's options that make no board (or a rated seek without a clock), accepting one's own seek,
# a record its format's reader refuses, a new password that is easy to guess (zxcvbn's estimate),
# a challenge's options that make no board (or one to oneself), a tournament's options that make no
# board, a start too far from now, an arena without its length or a swiss without its rounds
RULES_NO_SCHEMA_STATES = {"bad_room", "bad_position", "bad_seat", "bad_format", "bad_seek", "own_seek", "bad_record",
                          "weak_password", "bad_challenge", "bad_tournament"}


@schemathesis.check
def valid_data_is_refused_only_for_a_rule_the_schema_cannot_state(ctx: Any, response: Any, case: Any) -> None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return
    code = response.json().get("code")
    if code not in RULES_NO_SCHEMA_STATES:
        raise AssertionError(f"schema-valid data refused with 400 {code!r}: say the rule in the schema")
