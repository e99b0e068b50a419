"""The field-number lock: `protobuf/<contract>.lock.json`, committed beside the generated .proto.

Seed 001: "Field numbers are the contract. Never reuse one; mark removed numbers reserved." The
lock is read from the output folder being rendered into (``RenderOptions.out_dir``) and written
back with the render: a field keeps its number for ever; a new field takes the next number never
used; a field that leaves the contract has its number and name moved to ``reserved`` (a rename
declared with ``aliases`` keeps the number under the new name: the wire is unchanged). Enum values
are numbered the same way, ``0`` being ``<ENUM>_UNSPECIFIED``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tacit_gen import jsontext

if TYPE_CHECKING:
    from tacit_gen.contract.model import Contract

# Protobuf reserves 19000-19999 for its own implementation.
_IMPL_RESERVED = range(19000, 20000)


@dataclass
class Lock:
    """Field numbers of one message, reserved numbers and names, and enum value numbers."""

    fields: dict[str, int] = field(default_factory=dict)
    reserved: list[tuple[int, str]] = field(default_factory=list)  # (number, name)
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    enum_reserved: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Lock:
        """A lock from its JSON text.

        Raises:
            ValueError: not a lock file.
        """
        doc = json.loads(text)
        if not isinstance(doc, dict) or not isinstance(doc.get("fields"), dict):
            raise ValueError("not a tacit-gen protobuf lock (no 'fields' object)")
        lock = cls({str(k): int(v) for k, v in doc["fields"].items()},
                   [(int(r["number"]), str(r["name"])) for r in doc.get("reserved") or []])
        for fname, e in (doc.get("enums") or {}).items():
            lock.enums[str(fname)] = {str(k): int(v) for k, v in (e.get("values") or {}).items()}
            lock.enum_reserved[str(fname)] = [(int(r["number"]), str(r["name"]))
                                              for r in e.get("reserved") or []]
        return lock

    def used(self) -> set[int]:
        return set(self.fields.values()) | {n for n, _ in self.reserved}

    def reused(self) -> list[str]:
        """Problems: a reserved number or name that is also a live field (a hand-edited lock)."""
        out = []
        live_numbers = {n: k for k, n in self.fields.items()}
        for n, name in self.reserved:
            if n in live_numbers:
                out.append(f"reserved number {n} (was '{name}') is reused by field '{live_numbers[n]}'")
            if name in self.fields:
                out.append(f"reserved name '{name}' (number {n}) is reused by a field numbered {self.fields[name]}")
        seen: dict[int, str] = {}
        for k, n in self.fields.items():
            if n in seen:
                out.append(f"number {n} is given to both '{seen[n]}' and '{k}'")
            seen[n] = k
        return out

    def to_json(self, contract: Contract, message: str) -> str:
        doc: dict[str, Any] = {
            "generated_by": "tacit-gen",
            "source": contract.path,
            "contract": contract.name,
            "message": message,
            "notice": ("Protobuf field numbers: committed with the .proto, updated by tacit-gen render. "
                       "A number never moves; a removed field's number and name stay reserved."),
            "fields": dict(sorted(self.fields.items(), key=lambda kv: kv[1])),
            "reserved": [{"number": n, "name": name} for n, name in sorted(self.reserved)],
        }
        if self.enums:
            doc["enums"] = {
                k: {"values": dict(sorted(v.items(), key=lambda kv: kv[1])),
                    "reserved": [{"number": n, "name": name}
                                 for n, name in sorted(self.enum_reserved.get(k, []))]}
                for k, v in sorted(self.enums.items())
            }
        return jsontext.dumps(doc) + "\n"


def _next(used: set[int]) -> int:
    n = max(used, default=0) + 1
    while n in _IMPL_RESERVED:
        n += 1
    return n


def read_lock(out_dir: str | None, rel: str) -> Lock:
    """The committed lock under `out_dir`, or an empty one (no folder, no file, or unreadable)."""
    if not out_dir:
        return Lock()
    p = Path(out_dir) / rel
    try:
        return Lock.parse(p.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return Lock()


def update(old: Lock, contract: Contract, enum_fields: dict[str, tuple[str, ...]]) -> Lock:
    """The lock after this contract: existing numbers kept, new fields numbered, removed reserved.

    Args:
        old: the committed lock (empty for a first render).
        contract: the contract being rendered.
        enum_fields: field -> enum values, for the fields rendered as protobuf enums.
    """
    fields = dict(old.fields)
    reserved = list(old.reserved)
    names = {f.name for f in contract.fields}
    # a rename declared with aliases keeps the old number under the new name
    for f in contract.fields:
        if f.name in fields:
            continue
        for alias in f.aliases:
            if alias in fields and alias not in names:
                fields[f.name] = fields.pop(alias)
                break
    for gone in [k for k in fields if k not in names]:
        reserved.append((fields.pop(gone), gone))
    used = set(fields.values()) | {n for n, _ in reserved}
    for f in contract.fields:
        if f.name not in fields:
            fields[f.name] = _next(used)
            used.add(fields[f.name])
    enums: dict[str, dict[str, int]] = {}
    enum_reserved: dict[str, list[tuple[int, str]]] = {}
    for fname, values in enum_fields.items():
        src = fname if fname in old.enums else next(
            (a for f in contract.fields if f.name == fname for a in f.aliases if a in old.enums), fname)
        vals = dict(old.enums.get(src, {}))
        res = list(old.enum_reserved.get(src, []))
        for gone in [v for v in vals if v not in values]:
            res.append((vals.pop(gone), gone))
        vused = set(vals.values()) | {n for n, _ in res} | {0}
        for v in values:
            if v not in vals:
                vals[v] = _next(vused)
                vused.add(vals[v])
        enums[fname] = vals
        enum_reserved[fname] = res
    return Lock(fields, sorted(set(reserved)), enums, enum_reserved)


def for_earlier(today: Lock, earlier: Contract, enum_fields: dict[str, tuple[str, ...]],
                aliases: dict[str, str] | None = None) -> tuple[Lock, list[str]]:
    """The numbers an earlier version of the contract had, recovered from today's lock: a field
    by its name among today's fields or reserved names, or through a today field's `aliases`;
    enum values likewise. Numbers never move, so today's lock remembers every number ever given.

    Returns:
        (the lock, notes on fields today's lock does not know: they get fresh numbers).

    Args:
        aliases: old name -> today's name, from today's fields' `aliases`.
    """
    renamed = aliases or {}
    reserved = {name: n for n, name in today.reserved}
    fields: dict[str, int] = {}
    notes: list[str] = []
    used = today.used()
    for f in earlier.fields:
        n = today.fields.get(f.name, reserved.get(f.name))
        if n is None and f.name in renamed:
            n = today.fields.get(renamed[f.name])
        if n is None:
            n = _next(used | set(fields.values()))
            notes.append(f"'{f.name}' of {earlier.version} is not in today's lock: numbered {n} here")
        fields[f.name] = n
    enums: dict[str, dict[str, int]] = {}
    for fname, values in enum_fields.items():
        known = dict(today.enums.get(fname, {}))
        known.update({name: n for n, name in today.enum_reserved.get(fname, [])})
        vals: dict[str, int] = {}
        for v in values:
            vals[v] = known.get(v, _next(set(known.values()) | set(vals.values()) | {0}))
        enums[fname] = vals
    live = set(fields.values())
    return Lock(fields, [(n, name) for n, name in today.reserved if n not in live and name not in fields],
                enums, {}), notes
