"""One error type for contract problems; diagnostics are data with a stable code and a position."""

from __future__ import annotations

from tacit_gen.diagnostics import Diagnostic

__all__ = ["CODES", "ContractError", "Diagnostic"]


class ContractError(Exception):
    """A contract that does not load; carries every error diagnostic of the file."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


# Loader and checker codes (lint rules live in tacit_gen/contract/lint.py with codes TG2xx).
CODES = {
    "TG100": "YAML syntax error",
    "TG101": "duplicate key in a mapping",
    "TG102": "unknown key",
    "TG103": "wrong kind of value",
    "TG104": "required key missing",
    "TG105": "unknown type",
    "TG106": "bad duration",
    "TG107": "unknown column",
    "TG108": "expression syntax error",
    "TG109": "enum literal not in the enum",
    "TG110": "type mismatch in an expression",
    "TG111": "unit or dimension mismatch",
    "TG112": "nullable declared on a column that is never null",
    "TG113": "version is not semver",
    "TG114": "bad value",
    "TG115": "a name no target can use",
    "TG116": "a character no artifact can carry",
    "TG117": "a number beyond its column type",
    "TG118": "unknown exchange calendar",
    "TG119": "a clause id that names no clause of the contract",
    "TG130": "a pattern outside the portable regex subset",
    "TG140": "a reference that is not <relation>.<column> (a composite foreign key among them)",
}
