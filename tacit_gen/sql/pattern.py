"""`pattern:` on string fields: the regular-expression subset every engine reads the same way.

A pattern always matches the **whole** value (a leading ``^`` and a trailing ``$`` are allowed
and change nothing). The subset is what DuckDB (RE2), PostgreSQL (ARE, ``~``), Spark (Java
``rlike``), Python ``re`` (pandera, GX on pandas) and Snowflake (POSIX ERE) agree on:

- literal printable ASCII characters, except the metacharacters and ``'``;
- an escaped metacharacter (``\\.``, ``\\*``, ``\\+``, ``\\?``, ``\\(``, ``\\)``, ``\\{``,
  ``\\}``, ``\\|``, ``\\$``, ``\\-``, ``\\/``), rendered as a one-character class (``[.]``), so the
  body every engine receives holds no backslash (no string-literal escaping can change it);
- classes ``[A-Z0-9_-]`` / ``[^/]``: ASCII members, ranges within digits, upper or lower case
  letters, ``-`` only first or last;
- groups ``( )``, alternation ``|``, quantifiers ``* + ? {n} {n,} {n,m}`` (counts up to 255,
  PostgreSQL's limit).

Refused, each because some engine reads it differently: ``.`` (PostgreSQL's matches a newline,
the others' do not), ``\\d \\w \\s \\b`` (Unicode digits in Python, ASCII in RE2 and Java, the
locale in PostgreSQL: write ``[0-9]``), backreferences, ``(?...)`` (lookarounds, inline flags,
named and non-capturing groups: Java and Python only, or spelled differently), possessive and
lazy quantifiers, non-ASCII characters, ``^``/``$`` anywhere but the ends.

Each engine receives the body wrapped for a full match in its own flavor (:func:`full_match`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

MAX_COUNT = 255
_META = set(".^$*+?()[]{}|\\")
_ESCAPABLE = set(".*+?(){}|$-/")
_CLASS_HINTS = {
    "d": "write [0-9]: \\d means any Unicode digit in Python, ASCII digits in RE2 and Java",
    "D": "write [^0-9]: \\D differs between Unicode (Python) and ASCII (RE2, Java) engines",
    "w": "write [A-Za-z0-9_]: \\w is Unicode in Python and PostgreSQL, ASCII in RE2 and Java",
    "W": "write [^A-Za-z0-9_]: \\W differs between engines",
    "s": "write the characters, e.g. [ ]: \\s differs between engines (Unicode spaces, \\v)",
    "S": "write a class: \\S differs between engines",
    "b": "\\b (word boundary) is Unicode-aware in Python only; a pattern matches the whole value",
    "B": "\\B differs between engines",
}


@dataclass(frozen=True)
class PatternError(Exception):
    """A pattern outside the portable subset: the message, the offending text, its offset."""

    message: str
    word: str
    offset: int

    def __str__(self) -> str:
        return self.message


def _kind(c: str) -> str:
    return "digit" if c.isdigit() else "upper" if c.isupper() else "lower" if c.islower() else "other"


def normalize(text: str) -> str:
    """The canonical body of a pattern: anchors stripped, escapes as one-character classes.

    Raises:
        PatternError: when the pattern is outside the portable subset.
    """
    start, end = 0, len(text)
    if text.startswith("^"):
        start = 1
    if end > start and text.endswith("$") and not _escaped(text, end - 1):
        end -= 1
    out: list[str] = []
    i = start
    depth = 0
    can_quantify = False  # the previous item is an atom a quantifier may follow
    quantified = False  # the previous item is a quantifier

    def err(msg: str, at: int, word: str | None = None) -> PatternError:
        return PatternError(msg, word if word is not None else text[at:at + 1], at)

    if start >= end:
        raise err("an empty pattern matches only the empty string; write what a value looks like", 0, text)
    while i < end:
        c = text[i]
        if ord(c) < 0x20 or ord(c) > 0x7E:
            raise err(f"character {c!r} is not printable ASCII: engines read non-ASCII patterns "
                      "differently (encoding, collation)", i)
        if c == "'":
            raise err("a quote (') is not in the portable pattern subset (SodaCL pastes a pattern "
                      "into an SQL literal unescaped)", i)
        if c == "\\":
            if i + 1 >= end:
                raise err("a pattern cannot end with a lone backslash", i)
            e = text[i + 1]
            if e in _CLASS_HINTS:
                raise err(f"\\{e} is not portable: {_CLASS_HINTS[e]}", i, text[i:i + 2])
            if e.isdigit():
                raise err(f"\\{e} is a backreference: not portable (RE2 has none)", i, text[i:i + 2])
            if e not in _ESCAPABLE:
                raise err(f"escape \\{e} is not in the portable subset (escape only . * + ? ( ) "
                          "{ } | $ - /)", i, text[i:i + 2])
            out.append(e if e in "-/" else f"[{e}]")
            i += 2
            can_quantify, quantified = True, False
            continue
        if c == ".":
            raise err("'.' is not portable: PostgreSQL's matches a newline, RE2's, Java's and "
                      "Python's do not; write a class such as [^/] or [A-Za-z0-9]", i)
        if c == "^":
            raise err("'^' is allowed only at the start: a pattern always matches the whole value", i)
        if c == "$":
            raise err("'$' is allowed only at the end: a pattern always matches the whole value", i)
        if c in "*+?{":
            if quantified:
                what = {"+": "a possessive quantifier", "?": "a lazy quantifier"}.get(c, "a quantifier on a quantifier")
                raise err(f"{what} is not portable (PostgreSQL and RE2 read it differently or not at all)", i)
            if not can_quantify:
                raise err(f"'{c}' has nothing to repeat", i)
            if c == "{":
                m = re.compile(r"\{(\d+)(,(\d*))?\}").match(text, i, end)
                if m is None:
                    raise err("'{' starts a count {n}, {n,} or {n,m}; escape a literal brace as \\{", i)
                lo = int(m.group(1))
                hi = int(m.group(3)) if m.group(3) else None
                if lo > MAX_COUNT or (hi is not None and hi > MAX_COUNT):
                    raise err(f"a count above {MAX_COUNT} is refused by PostgreSQL", i, m.group(0))
                if hi is not None and hi < lo:
                    raise err(f"count {m.group(0)}: the maximum is below the minimum", i, m.group(0))
                out.append(m.group(0))
                i = m.end()
            else:
                out.append(c)
                i += 1
            can_quantify, quantified = False, True
            continue
        quantified = False
        if c == "}":
            raise err("a lone '}' is not portable; escape it as \\}", i)
        if c == "]":
            raise err("a lone ']' is not portable; a literal ']' is not in the subset", i)
        if c == "(":
            if i + 1 < end and text[i + 1] == "?":
                raise err("'(?' (lookaround, inline flags, named or non-capturing group) is not "
                          "portable; use a plain group ( )", i, text[i:i + 3])
            depth += 1
            out.append(c)
            i += 1
            can_quantify = False
            continue
        if c == ")":
            if depth == 0:
                raise err("')' closes no group", i)
            depth -= 1
            out.append(c)
            i += 1
            can_quantify = True
            continue
        if c == "|":
            out.append(c)
            i += 1
            can_quantify = False
            continue
        if c == "[":
            j, cls = _class(text, i, end, err)
            out.append(cls)
            i = j
            can_quantify = True
            continue
        out.append(c)
        i += 1
        can_quantify = True
    if depth:
        raise err("a group '(' is not closed", text.rfind("(", start, end))
    return "".join(out)


def _escaped(text: str, at: int) -> bool:
    n = 0
    while at - 1 - n >= 0 and text[at - 1 - n] == "\\":
        n += 1
    return n % 2 == 1


def _class(text: str, i: int, end: int, err: object) -> tuple[int, str]:
    """Parse ``[...]`` at `i`; return the index after it and its canonical text."""
    mk = err  # a closure making PatternError
    j = i + 1
    neg = j < end and text[j] == "^"
    if neg:
        j += 1
    first = j
    members: list[str] = []
    while True:
        if j >= end:
            raise mk("a class '[' is not closed", i)  # type: ignore[operator]
        c = text[j]
        if c == "]":
            break
        if ord(c) < 0x20 or ord(c) > 0x7E:
            raise mk(f"character {c!r} is not printable ASCII", j)  # type: ignore[operator]
        if c in "\\[":
            raise mk(f"'{c}' inside a class is not portable (Java reads '[' as a nested class, "
                     "PostgreSQL reads escapes in classes its own way)", j)  # type: ignore[operator]
        if c == "'":
            raise mk("a quote (') is not in the portable pattern subset", j)  # type: ignore[operator]
        if c == "&" and j + 1 < end and text[j + 1] == "&":
            raise mk("'&&' inside a class is an intersection in Java only", j, "&&")  # type: ignore[operator]
        if c == "-" and j != first and j + 1 < end and text[j + 1] != "]":
            lo = members.pop() if members else ""
            hi = text[j + 1]
            if len(lo) != 1 or _kind(lo) == "other" or _kind(lo) != _kind(hi) or hi < lo:
                raise mk(f"range '{lo}-{hi}' is not portable: ranges go within digits, upper-case "
                         "or lower-case letters (a literal '-' goes first or last)", j - 1, f"{lo}-{hi}")  # type: ignore[operator]
            members.append(f"{lo}-{hi}")
            j += 2
            continue
        members.append(c)
        j += 1
    if not members:
        raise mk("an empty class '[]' is not portable", i, text[i:j + 1])  # type: ignore[operator]
    body = "".join(members)
    if body.startswith("^"):  # a literal ^ first would negate: move it
        body = body[1:] + "^" if len(body) > 1 else body
        if body == "^":
            raise mk("a class holding only '^' is not portable", i, text[i:j + 1])  # type: ignore[operator]
    return j + 1, "[" + ("^" if neg else "") + body + "]"


# The flavor of each SQL dialect's regex function, and of the Python and Java engines.
FLAVORS = ("re2", "posix", "java", "python")
DIALECT_FLAVOR = {
    "duckdb": "re2",
    "postgres": "posix",
    "spark": "java",
    "databricks": "java",
    "snowflake": "posix",
    "bigquery": "re2",
}


def full_match(body: str, flavor: str) -> str:
    """The body wrapped so that a *search* in `flavor` succeeds only on a whole-value match.

    ``$`` is the end of the text in RE2 and PostgreSQL, but in Java and Python it also matches
    before a final newline, so those end with ``\\z`` / ``\\Z`` (end of input only).
    """
    end = {"java": "\\z", "python": "\\Z"}.get(flavor, "$")
    return f"^({body}){end}"


def body_of(full: str) -> str | None:
    """Read a rendered full-match pattern back to its body (None when it is not one)."""
    m = re.fullmatch(r"\^\((.*)\)(\$|\\z|\\Z)", full, re.S)
    return m.group(1) if m else None


def matches(body: str, value: str) -> bool:
    """The reference semantics: the whole value matches the canonical body."""
    return re.fullmatch(body, value) is not None


# -- language inclusion (for `diff`: a looser pattern is with notice, a tighter one breaking) ---

_OTHER = "\x00"  # stands for every character no pattern of the subset names (non-ASCII, controls)
_ALPHABET = (*(chr(c) for c in range(0x20, 0x7F)), _OTHER)


def _sre() -> Any:
    """The stdlib's regex parser (``re._parser``), typed loosely: its names are not typed."""
    import importlib

    return importlib.import_module("re._parser")


def _nfa(body: str) -> tuple[list[list[tuple[frozenset[str] | None, int]]], int, int]:
    """A Thompson NFA of a canonical body: (edges per state, start, accept); an edge label is a
    set of characters, None for an epsilon move."""
    sre = _sre()  # the stdlib's own parser of the syntax (the subset is plain Python re)

    edges: list[list[tuple[frozenset[str] | None, int]]] = []

    def new() -> int:
        edges.append([])
        return len(edges) - 1

    def chars(op: object, av: object) -> frozenset[str]:
        if op is sre.LITERAL:
            return frozenset(chr(av))  # type: ignore[arg-type]
        if op is sre.NOT_LITERAL:
            return frozenset(c for c in _ALPHABET if c != chr(av))  # type: ignore[arg-type]
        negate, members = False, set()
        for o, a in av:  # type: ignore[attr-defined]
            if o is sre.NEGATE:
                negate = True
            elif o is sre.LITERAL:
                members.add(chr(a))
            elif o is sre.RANGE:
                members.update(chr(c) for c in range(a[0], a[1] + 1))
        return frozenset(c for c in _ALPHABET if c not in members) if negate else frozenset(members)

    def seq(items: object, s: int) -> int:
        for op, av in items:  # type: ignore[attr-defined]
            s = one(op, av, s)
        return s

    def one(op: object, av: object, s: int) -> int:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN):
            e = new()
            edges[s].append((chars(op, av), e))
            return e
        if op is sre.SUBPATTERN:
            return seq(av[-1], s)  # type: ignore[index]
        if op is sre.BRANCH:
            e = new()
            for alt in av[1]:  # type: ignore[index]
                b = new()
                edges[s].append((None, b))
                edges[seq(alt, b)].append((None, e))
            return e
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            lo, hi, item = cast("tuple[int, Any, Any]", av)
            for _ in range(lo):
                s = seq(item, s)
            if hi is sre.MAXREPEAT:
                loop = new()
                edges[s].append((None, loop))
                edges[seq(item, loop)].append((None, loop))
                return loop
            e = new()
            edges[s].append((None, e))
            for _ in range(hi - lo):
                s = seq(item, s)
                edges[s].append((None, e))
            return e
        raise ValueError(f"not in the pattern subset: {op}")

    start = new()
    accept = seq(sre.parse(body), start)
    return edges, start, accept


def _closure(edges: list[list[tuple[frozenset[str] | None, int]]], states: set[int]) -> frozenset[int]:
    todo, seen = list(states), set(states)
    while todo:
        for label, t in edges[todo.pop()]:
            if label is None and t not in seen:
                seen.add(t)
                todo.append(t)
    return frozenset(seen)


def _step(edges: list[list[tuple[frozenset[str] | None, int]]], states: frozenset[int], c: str) -> frozenset[int]:
    return _closure(edges, {t for s in states for label, t in edges[s] if label is not None and c in label})


def includes(outer: str, inner: str, limit: int = 20_000) -> bool | None:
    """Does every value matching body `inner` match body `outer`? None when undecided within
    `limit` product states (the caller assumes the worst)."""
    ea, sa, aa = _nfa(inner)
    eb, sb, ab = _nfa(outer)
    first = (_closure(ea, {sa}), _closure(eb, {sb}))
    todo, seen = [first], {first}
    while todo:
        x, y = todo.pop()
        if aa in x and ab not in y:
            return False
        for c in _ALPHABET:
            nx = _step(ea, x, c)
            if not nx:
                continue
            pair = (nx, _step(eb, y, c))
            if pair not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(pair)
                todo.append(pair)
    return True


# -- examples (for `sample`) ------------------------------------------------------------------

# Characters an example prefers, most readable first (no space, quote, comma or backslash).
_PREFERRED = tuple("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-.:/@#+=")
_REST = tuple(c for c in _ALPHABET if c not in _PREFERRED and c != _OTHER)


def example(body: str, i: int = 0) -> str | None:
    """The `i`-th example value matching body `body` (deterministic; distinct examples for
    distinct small `i` wherever the pattern allows), or None when none is found."""
    sre = _sre()
    counter = [i]

    def pick(options: list[str]) -> str:
        k = counter[0] % len(options)
        counter[0] //= len(options)
        return options[k]

    def chars(op: object, av: object) -> list[str]:
        if op is sre.LITERAL:
            return [chr(av)]  # type: ignore[arg-type]
        if op is sre.NOT_LITERAL:
            allowed = {c for c in _ALPHABET if c != chr(av)}  # type: ignore[arg-type]
        else:
            negate, members = False, set()
            for o, a in av:  # type: ignore[attr-defined]
                if o is sre.NEGATE:
                    negate = True
                elif o is sre.LITERAL:
                    members.add(chr(a))
                elif o is sre.RANGE:
                    members.update(chr(c) for c in range(a[0], a[1] + 1))
            allowed = {c for c in _ALPHABET if c not in members} if negate else members
        return [c for c in (*_PREFERRED, *_REST) if c in allowed]

    def seq(items: object) -> str:
        return "".join(one(op, av) for op, av in items)  # type: ignore[attr-defined]

    def one(op: object, av: object) -> str:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN):
            return pick(chars(op, av))
        if op is sre.SUBPATTERN:
            return seq(av[-1])  # type: ignore[index]
        if op is sre.BRANCH:
            alts = list(av[1])  # type: ignore[index]
            return seq(alts[int(pick([str(k) for k in range(len(alts))]))])
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            lo, hi, item = cast("tuple[int, Any, Any]", av)
            return "".join(seq(item) for _ in range(max(lo, 1) if hi is sre.MAXREPEAT or hi >= 1 else lo))
        raise ValueError(f"not in the pattern subset: {op}")

    value = seq(sre.parse(body))
    return value if value and matches(body, value) else None


def counterexample(body: str, near: str) -> str | None:
    """A non-empty printable value close to `near` that does not match `body`, or None."""
    tries = [near + "#", "#" + near, near.swapcase(), near[:-1]]
    tries += [near + c for c in (*_PREFERRED, *_REST)] + [c + near for c in (*_PREFERRED, *_REST)]
    for cand in tries:
        if cand.strip() == cand and cand and not matches(body, cand):
            return cand
    return None
