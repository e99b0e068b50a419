"""SQL texts as compiled templates: the shape of a query printed once, names filled in as text.

Most of a cold render's start is sqlglot itself: importing it and its DuckDB dialect costs more
than the rest of `render` of one contract (issue 16). What a target asks sqlglot for is a query
whose *shape* (its clauses, functions, flags, numbers, dialect and layout) rarely changes when a
contract is edited, while its *names* (columns, relations, string literals) do. So a query is
printed once with numbered markers where the names go, the text is kept on disk (the
``sql/`` folder of the cache directory, beside the render cache), and a later render of any
contract asking for the same shape takes the text and puts its own names into it, without
importing sqlglot. This is the same kind of cache as Jinja's compiled templates beside it: it
holds nothing of a contract, only shapes.

A template is only used where it is provably the text sqlglot would print:

- **Safe slots only.** A name slot is a plain lower-case name that no dialect's generator quotes
  (`tacit_gen.sql.build.ident`'s rule, tested against every keyword of the pinned sqlglot); a
  string slot is printable ASCII without a quote, backslash, brace, colon or percent sign (no
  dialect escapes it, and GX's text escaping leaves it alone). Each is 2 to `MAX_LEN`
  characters and does not look like a marker (``z0``, ``Z1__``). A list slot (``strings``) holds
  the items of a flat list of string literals, each a safe string: the list is one literal's
  content in the template, so a column added to the list keeps it. A name tacit-gen quotes (a
  keyword such as ``value``, or one with a capital letter) is a ``quoted`` slot when it is a
  word of ASCII letters, digits and underscores: every dialect prints it between its identifier
  quotes as it is, and its marker (``Z0__``, a capital) is printed quoted the same way; such a
  template is stored only when it also gives sqlglot's text for names of the other sorts
  (``Q0qq``: mixed case, no keyword; ``all``: a keyword). Any other value renders through
  sqlglot, as before.
- **Equal values are part of the shape.** Slots holding the same value share one marker, and
  the key records which slots do: a query that depends on two names being equal never gets the
  template of two distinct ones.
- **Layout checked.** A pretty query breaks a line where a part is wider than 80 characters, so
  the layout can depend on a name's length. Every such decision of sqlglot's generator only
  grows with each length it sums (a wider part only adds characters, a line break only adds
  indentation), so when the query printed with every marker at its lower bound and the query
  printed with every marker at its upper bound have the same text apart from the markers, every
  mix of lengths between prints alike. A template records such a box, one range of lengths per
  slot: from the real values' lengths, widened by bisection (every slot shortened alike, to 2 at
  least; lengthened alike, to `MAX_LEN`, `MAX_LIST` for a list) while the layout holds; it is
  used only for values within it.
- **Checked against the real text.** A template is stored only by a render that printed the real
  query through sqlglot too, and only when filling the template with that render's values gives
  that text, byte for byte; a query whose compilation raises is not stored.

The key of a template names the shape (the caller's `structure`: everything but the slots), the
slots' kinds, and the code: tacit-gen's files, its version and the installed libraries' (the
render cache's key of the code, `tacit_gen.rendercache`), so an upgrade never reads an old
template. Templates are read and written only inside `scope`, which a cached render opens
(`--no-cache` renders without them); a template that cannot be read is a miss.

Used for an invariant's condition (`tacit_gen.sql.build.to_sql`: dbt, Soda, Soda 4, GX), Soda's
unknown-columns query, the cadence queries of Soda and GX (in sessions or not, a fixed interval or
the catalog's), the catalog unit and bounds queries of Soda and GX, the completeness queries of
dbt, Soda and GX over fixed windows (`tacit_gen.sql.completeness.templated`), GX's freshness
query, and Soda's increment condition on completeness windows (a template without slots). A
caller must name as structure everything else its text reads: `clause_text` makes a clause's name parameters
(`NAME_PARAMS`, `STRING_PARAMS`) slots and every other parameter structure; a query that also
reads the contract (a field's type, the catalog) must say so in its structure, or not use
templates.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tacit_gen import diskcache
from tacit_gen.sql.names import RESERVED, plain_text, prints_as_itself, quoted_as_itself

if TYPE_CHECKING:
    from tacit_gen.plan_types import Clause

FORMAT = "tacit-gen sql template 2"
FOLDER = "sql"
MAX_LEN = 63  # PostgreSQL's identifier limit
MAX_SLOTS = 36
MAX_FILES = 4096  # the folder is pruned to three quarters of this, least recently used first
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_GX_SPECIAL = frozenset("{}:%")  # GX's query escaping touches these (`targets.gx.queries.gx_query`)


LIST_SEP = "', '"  # between the items of a ``strings`` slot: `'a', 'b'` is the list's text
MAX_LIST = 65_536


@dataclass(frozen=True)
class Slot:
    """A value the caller puts into the query: a ``name`` (a column or one-part relation), a
    ``string`` literal's content, or ``strings``: the items of a flat list of string literals
    (``IN ('a', 'b')``) joined by `LIST_SEP`, so that the list is one string literal's content
    in the template (a list of any length fills one template: sqlglot never breaks a flat list).
    A ``quoted`` slot is a name that prints between quotes (`text` makes it from a ``name``
    slot whose value is a keyword or has a capital letter); callers pass names as ``name``."""

    kind: Literal["name", "quoted", "string", "strings"]
    value: str


_Parsed = tuple[str, str, tuple[tuple[int, int], ...]]  # a template file: (key, text, each slot's bounds)


@dataclass(frozen=True)
class _Scope:
    folder: Path
    code: str
    storable: bool
    # the templates this run has read or stored, by key (None: no file under the key): a render
    # of many contracts reads each template file once, not once per query (see `scope`)
    memo: dict[str, _Parsed | None] = field(compare=False)


_SCOPE: ContextVar[_Scope | None] = ContextVar("tacit_sql_templates", default=None)


@contextlib.contextmanager
def scope(code: str, storable: bool, folder: Path | None = None,
          memo: dict[str, _Parsed | None] | None = None) -> Iterator[None]:
    """Templates are read (and, when `storable`, written) within this block; `code` is the key
    of tacit-gen and its libraries (see the module docstring). `memo`: the templates already read
    or stored by earlier blocks of the same run (a render opens one block per contract and
    passes the same dict to each): a template file is read, and its time touched, once a run.
    A file another process rewrites meanwhile is not read again; any text of the same key is a
    template that held against sqlglot's, so either serves."""
    token = _SCOPE.set(_Scope(folder if folder is not None else diskcache.cache_dir() / FOLDER,
                              hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest(),
                              storable, {} if memo is None else memo))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def active() -> bool:
    """Whether templates are read here (within `scope`): a caller may skip naming its slots."""
    return _SCOPE.get() is not None


def safe(slot: Slot) -> bool:
    """Whether a value prints the same as text in every dialect (see the module docstring)."""
    if slot.kind == "strings":
        return len(slot.value) <= MAX_LIST and all(
            _safe_string(item) for item in slot.value.split(LIST_SEP))
    v = slot.value
    if not 2 <= len(v) <= MAX_LEN or _MARKER.search(v):
        return False
    if slot.kind == "name":
        return prints_as_itself(v)
    if slot.kind == "quoted":
        return quoted_as_itself(v)
    return _safe_string(v)


def _safe_string(v: str) -> bool:
    return 2 <= len(v) <= MAX_LEN and not _MARKER.search(v) and plain_text(v) \
        and not _GX_SPECIAL.intersection(v)


def _marker(i: int, length: int, kind: str = "name") -> str:
    """Slot `i`'s marker, `length` characters long (at least 2): ``Z0__`` for a quoted name (a
    capital letter, so that the query prints it quoted, as it prints the real name), else
    ``z0__``."""
    return ("Z" if kind == "quoted" else "z") + _DIGITS[i] + "_" * (length - 2)


def _probes(slots: Sequence[Slot]) -> list[list[Slot]]:
    """Other values for the quoted slots, each set of the other sorts than a real name may be:
    mixed case and no keyword (``Q0qq``, the real length), and a lower-case keyword (``all``,
    ``and``, ...: one each, in order). A template of quoted names holds only if it also gives
    sqlglot's text for these: a query that printed a keyword otherwise than a capitalised name
    (as a generator's own keyword quoting would) is never stored."""
    mixed = [Slot(s.kind, "Q" + _DIGITS[i] + "q" * (len(s.value) - 2)) if s.kind == "quoted" else s
             for i, s in enumerate(slots)]
    words = iter(_KEYWORDS)
    keyword = [Slot(s.kind, next(words)) if s.kind == "quoted" else s for s in slots]
    return [mixed, keyword]


_KEYWORDS = sorted(w for w in RESERVED if len(w) >= 2 and quoted_as_itself(w))  # more than MAX_SLOTS


_MARKER = re.compile(r"\b[zZ]([0-9a-z])_*\b")


def _layout(text: str) -> str:
    return _MARKER.sub(r"<\1>", text)


def _key(sc: _Scope, shape: str, structure: str, slots: Sequence[Slot]) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, sc.code, shape, structure, ",".join(s.kind for s in slots)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def _fill(template: str, slots: Sequence[Slot]) -> str:
    return _MARKER.sub(lambda m: slots[_DIGITS.index(m.group(1))].value, template)


# A template file's bytes → (its key, text, bounds), or None when they are not a template: a
# render reads the same few templates hundreds of times, and parses each once. Keyed by content,
# so a file rewritten (or broken) between two reads is parsed again.
_PARSED: dict[bytes, _Parsed | None] = {}


def _parse(raw: bytes) -> _Parsed | None:
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("key"), str):
        return None
    text, bounds = data.get("text"), data.get("bounds")
    if not isinstance(text, str) or not isinstance(bounds, list) or len(bounds) > MAX_SLOTS:
        return None
    if not all(isinstance(b, list) and len(b) == 2 and all(type(x) is int for x in b) for b in bounds):
        return None
    if {m.group(1) for m in _MARKER.finditer(text)} - set(_DIGITS[:len(bounds)]):
        return None
    return data["key"], text, tuple((b[0], b[1]) for b in bounds)


def _load(path: Path) -> _Parsed | None:
    """The template file at `path`, parsed, or None when it is absent or not a template. A file
    read is touched: the least recently used go first when the folder is pruned."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return None
    if raw in _PARSED:
        parsed = _PARSED[raw]
    else:
        if len(_PARSED) >= MAX_FILES:
            _PARSED.clear()
        parsed = _PARSED[raw] = _parse(raw)
    if parsed is not None:
        with contextlib.suppress(OSError):
            path.touch()
    return parsed


_UNREAD = object()


def _read(sc: _Scope, path: Path, key: str, slots: Sequence[Slot]) -> str | None:
    """The template stored under `key` when it holds for the slots' lengths, else None (the
    file read once a scope's run: `scope`'s memo)."""
    got = sc.memo.get(key, _UNREAD)
    if got is _UNREAD:
        got = sc.memo[key] = _load(path)
    parsed = got if isinstance(got, tuple) else None
    if parsed is None or parsed[0] != key or len(parsed[2]) != len(slots):
        return None
    for s, (low, high) in zip(slots, parsed[2], strict=True):
        if not low <= len(s.value) <= high:
            return None
    return parsed[1]


def _compile(slots: Sequence[Slot], build: Callable[[list[str]], str],
             real: str) -> tuple[str, list[tuple[int, int]]] | None:
    """(the template, each slot's shortest and longest value it holds for), or None when no
    template gives `real`.

    Every layout decision grows with each slot's length, so when the query printed with every
    marker at its lower bound and the query printed with every marker at its upper bound have one
    layout, so does any mix of lengths between. The box starts at the real values' lengths and is
    widened by bisection, down (every slot shortened alike, to 2 at least) and up (lengthened
    alike, to `MAX_LEN`, `MAX_LIST` for a list) while the layout holds."""

    def printed(lengths: Sequence[int]) -> str:
        return build([_marker(i, n, s.kind) for i, (s, n) in enumerate(zip(slots, lengths, strict=True))])

    reals = [len(s.value) for s in slots]
    caps = [max(MAX_LIST if s.kind == "strings" else MAX_LEN, n) for s, n in zip(slots, reals, strict=True)]
    at_real = printed(reals)
    if _fill(at_real, slots) != real:
        return None
    if any(s.kind == "quoted" for s in slots):
        # a quoted name is a keyword or has capitals: the template must also give what sqlglot
        # prints for a quoted name of the other sort, not only for the real one
        for probe in _probes(slots):
            values = [p.value for p in probe]
            if len(set(values)) != len(values) or \
                    _fill(printed([len(v) for v in values]), probe) != build(values):
                return None
    target = _layout(at_real)

    def down(t: int) -> list[int]:
        return [max(2, n - t) for n in reals]

    def up(t: int) -> list[int]:
        return [min(c, n + t) for n, c in zip(reals, caps, strict=True)]

    def widest(corner: Callable[[int], list[int]], limit: int) -> int:
        """The largest t up to `limit` whose corner prints the target layout (0 always does)."""
        if limit <= 0 or _layout(printed(corner(limit))) == target:
            return max(limit, 0)
        inside, outside = 0, limit
        while outside - inside > 1:
            mid = (inside + outside) // 2
            if _layout(printed(corner(mid))) == target:
                inside = mid
            else:
                outside = mid
        return inside

    lower = down(widest(down, max(reals) - 2))
    upper = up(widest(up, max(c - n for n, c in zip(reals, caps, strict=True))))
    return at_real, list(zip(lower, upper, strict=True))


def text(shape: str, structure: str, slots: Sequence[Slot], build: Callable[[list[str]], str]) -> str:
    """The SQL text `build(values)` prints for the slots' values, from a template when one fits.

    `structure` names everything but the slots that the text depends on (the dialect, the form,
    flags, numbers, counts); `build` prints the query for any values of the slots, each used as
    its kind says (a name as an identifier, a string as a literal's content).
    """
    sc = _SCOPE.get()
    values = [s.value for s in slots]
    if sc is None or len(slots) > MAX_SLOTS:
        return build(values)
    slots = [Slot("quoted", s.value) if s.kind == "name" and quoted_as_itself(s.value) else s
             for s in slots]
    if not all(safe(s) for s in slots):
        return build(values)
    # slots holding one value share one marker, and the key says which do: a query may depend
    # on two names being equal (a template of two distinct names must not serve equal ones)
    unique = list(dict.fromkeys(values))
    where = [unique.index(v) for v in values]
    distinct = [Slot(slots[where.index(i)].kind, v) for i, v in enumerate(unique)]
    key = _key(sc, shape, structure + "\n" + ",".join(map(str, where)), slots)
    path = sc.folder / f"{key[:32]}.json"
    template = _read(sc, path, key, distinct)
    if template is not None:
        return _fill(template, distinct)
    real = build(values)

    def build_distinct(markers: list[str]) -> str:
        return build([markers[i] for i in where])

    try:
        # a text without slots (a constant of its structure) is its own template
        compiled = None if not sc.storable else _compile(distinct, build_distinct, real) if slots \
            else (real, [])
    except Exception:  # an accelerator: a query that does not compile is printed each time
        compiled = None
    if compiled is not None:
        entry = {"format": FORMAT, "key": key, "text": compiled[0],
                 "bounds": [list(b) for b in compiled[1]]}
        if diskcache.store(path.name, entry, folder=sc.folder):
            sc.memo[key] = (key, compiled[0], tuple((low, high) for low, high in compiled[1]))
            diskcache.prune(sc.folder, MAX_FILES)
    return real


# The clause parameters that are names (a column, a one-part relation) or string literals in the
# SQL of a clause; every other parameter is part of a query's shape.
NAME_PARAMS = frozenset((
    "column", "series", "sessions_relation", "sessions_calendar", "sessions_session",
    "sessions_open", "sessions_close", "calendar_catalog", "calendar_series",
    "calendar_catalog_key", "calendar_catalog_column", "catalog_column", "catalog_key", "relation",
    "key", "min_column", "max_column",
))
# Not slots, so part of a query's shape: the outages relation's columns (`start`, `end` and `type`
# by default; `end` is a keyword every dialect quotes, which would keep the query off templates)
STRING_PARAMS = frozenset(("calendar",))


def clause_text(shape: str, clause: Clause, structure: str, slots: Sequence[Slot],
                build: Callable[[Clause, list[str]], str]) -> str:
    """`text` for a query built from a clause: its name and string parameters (`NAME_PARAMS`,
    `STRING_PARAMS`; a tuple of names is one slot per name) are slots after `slots`, its other
    parameters are part of the shape. `build(clause, values)` prints the query from a clause
    whose slotted parameters hold the values, `values` being those of `slots`."""
    import dataclasses

    taken: list[Slot] = list(slots)
    shape_params: list[str] = []
    where: list[tuple[str, int, int]] = []  # (param, first slot, count; -1: a single value)
    for k, v in clause.params:
        kind: Literal["name", "string"] | None = (
            "name" if k in NAME_PARAMS else "string" if k in STRING_PARAMS else None)
        if kind is not None and isinstance(v, str):
            where.append((k, len(taken), -1))
            taken.append(Slot(kind, v))
            shape_params.append(f"{k}=<slot>")
        elif kind == "name" and isinstance(v, tuple) and all(isinstance(x, str) for x in v):
            where.append((k, len(taken), len(v)))
            taken.extend(Slot("name", x) for x in v)
            shape_params.append(f"{k}=<{len(v)} slots>")
        else:
            shape_params.append(f"{k}={v!r}")
    head = len(slots)

    real = [s.value for s in taken]

    def rebuild(values: list[str]) -> str:
        if values == real:
            return build(clause, values[:head])
        params = dict(clause.params)
        for k, first, count in where:
            params[k] = values[first] if count < 0 else tuple(values[first:first + count])
        # what else of the clause names the real columns (its id, text, columns, expression,
        # types) is blanked: a query that printed any of it would differ from its template filled
        # with the real names, and is never stored (see `text`)
        placed = dataclasses.replace(clause, params=tuple(params.items()), id=clause.kind,
                                     text=clause.kind, columns=(), expr=None, types=(),
                                     integers=frozenset(), strings=frozenset())
        return build(placed, values[:head])

    full = "\n".join([clause.kind, structure, *shape_params])
    return text(shape, full, taken, rebuild)
