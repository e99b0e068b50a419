"""Semantic versions: parse, order (semver 2.0.0 precedence), and the bump between two versions."""

from __future__ import annotations

import re

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$"
)


def parse(version: str) -> tuple[int, int, int, tuple[str, ...]]:
    """``1.2.3-rc.1+build`` -> (1, 2, 3, ("rc", "1")); build metadata is ignored.

    Raises:
        ValueError: not a semantic version.
    """
    m = _SEMVER.match(version.strip())
    if not m:
        raise ValueError(f"version '{version}' is not semver (MAJOR.MINOR.PATCH)")
    pre = tuple(m.group(4).split(".")) if m.group(4) else ()
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), pre


def sort_key(version: str) -> tuple[int, int, int, int, tuple[tuple[int, int, str], ...]]:
    """A key ordering versions by semver precedence (a pre-release sorts before its release)."""
    major, minor, patch, pre = parse(version)
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre)
    return major, minor, patch, 0 if pre else 1, ids


def declared_bump(old: str, new: str) -> str:
    """The bump two declared versions make: major, minor, patch, prerelease, none, or backwards.

    Only MAJOR.MINOR.PATCH count, except that moving forward from a pre-release of the same
    MAJOR.MINOR.PATCH (``2.0.0-rc.1`` -> ``2.0.0-rc.2`` or ``2.0.0``) is "prerelease": a
    pre-release promises nothing, so any change may follow it.
    """
    a, b = parse(old)[:3], parse(new)[:3]
    if sort_key(new) < sort_key(old):
        return "backwards"
    if a == b and parse(old)[3] and sort_key(new) > sort_key(old):
        return "prerelease"
    if b[0] > a[0]:
        return "major"
    if b[1] > a[1]:
        return "minor"
    if b[2] > a[2]:
        return "patch"
    return "none"


def least_version(old: str, bump: str) -> str:
    """The smallest version after `old` with the given bump (``1.4.2`` + minor -> ``1.5.0``)."""
    major, minor, patch, _ = parse(old)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    if bump == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return old
