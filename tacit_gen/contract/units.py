"""Units and dimensions, resolved with pint, extended with currency and count units.

pint costs about half a second to import and build, more than the rest of `lint`: the units
contracts name most (every suffix unit, currency and count unit, the common SI units) are looked
up in `unit_table.py`, a table pint computed once (``python -m tacit_gen.contract.units >
tacit_gen/contract/unit_table.py``; a test recomputes it with the installed pint). Anything else
builds the registry on first use, and its answers are remembered on disk (`unit_cache.py`), so a
second run asking the same does not import pint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tacit_gen.contract import unit_cache

# ISO 4217 codes most seen in market data; each is its own base dimension, so USD and EUR never
# compare. The seed's placeholders `quote_currency` and `base_currency` are currencies too.
ISO_4217 = (
    "USD", "EUR", "GBP", "JPY", "CHF", "CNY", "HKD", "SGD", "AUD", "NZD", "CAD", "SEK", "NOK",
    "DKK", "PLN", "CZK", "HUF", "ILS", "INR", "KRW", "TWD", "BRL", "MXN", "ZAR", "TRY", "RUB",
    "SAR", "AED", "THB", "IDR", "MYR", "PHP", "CLP", "COP", "PEN", "ARS",
)
CURRENCY_WORDS = ("quote_currency", "base_currency")
# Count units: a volume in shares is not a volume in lots (seed 001's first incident).
COUNT_UNITS = ("share", "lot", "contract", "trade", "event", "reading")

CATALOG_UNIT = "per series from catalog"

# Name suffixes that are unambiguous unit spellings: value_degc, pressure_kpa, latency_ms.
SUFFIX_UNITS = {
    "degc": "degC",
    "degf": "degF",
    "degk": "kelvin",
    "kelvin": "kelvin",
    "kpa": "kPa",
    "mpa": "MPa",
    "hpa": "hPa",
    "pa": "Pa",
    "bar": "bar",
    "mbar": "mbar",
    "psi": "psi",
    "mm": "mm",
    "cm": "cm",
    "km": "km",
    "kg": "kg",
    "ms": "ms",
    "us": "us",
    "ns": "ns",
    "sec": "s",
    "secs": "s",
    "seconds": "s",
    "hz": "Hz",
    "khz": "kHz",
    "kw": "kW",
    "mw": "MW",
    "kwh": "kWh",
    "mwh": "MWh",
    "volts": "V",
    "amps": "A",
    "rpm": "rpm",
    "pct": "percent",
    "percent": "percent",
    **{c.lower(): c for c in ISO_4217},
}

_INVENTED: set[str] = set()
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@lru_cache(maxsize=1)
def registry() -> Any:
    """The shared pint registry with currency and count units defined."""
    import pint

    ureg: Any = pint.UnitRegistry(autoconvert_offset_to_baseunit=False)
    for code in (*ISO_4217, *CURRENCY_WORDS):
        ureg.define(f"{code} = [currency_{code}]")
    for unit in COUNT_UNITS:
        if unit not in ureg:
            ureg.define(f"{unit} = [{unit}_count] = {unit}s")
    for text in sorted(_INVENTED):  # resolved from the table before the registry was needed
        ureg.define(f"{text} = [{text}_dim]")
    return ureg


@dataclass(frozen=True)
class ResolvedUnit:
    """A unit as pint knows it; `invented` when pint did not know it and it became its own dimension."""

    text: str
    canonical: str
    dimensionality: str
    invented: bool = False

    @property
    def is_currency(self) -> bool:
        return self.dimensionality.startswith("[currency_")


class UnitError(ValueError):
    """A unit that cannot be read at all (not a word, not a pint expression)."""


def _invent(text: str) -> None:
    """`text` is a unit pint does not know: a base dimension of its own, in the registry too."""
    if text not in _INVENTED:
        _INVENTED.add(text)
        if registry.cache_info().currsize:  # built already: define it there now
            registry().define(f"{text} = [{text}_dim]")


def resolve(text: str) -> ResolvedUnit:
    """Resolve a unit; an identifier pint does not know becomes a base dimension of its own."""
    from tacit_gen.contract.unit_table import UNITS

    known = UNITS.get(text)
    if known is not None:
        canonical, dimensionality, invented = known
        if invented:
            _invent(text)
        return ResolvedUnit(text, canonical, dimensionality, invented)
    got = unit_cache.cached("resolve", (text,), _INVENTED, lambda: _resolve_answer(text))
    if "error" in got:
        raise UnitError(got["error"])
    if got["invented"]:
        _invent(text)
    return ResolvedUnit(text, got["canonical"], got["dimensionality"], got["invented"])


def _resolve_answer(text: str) -> dict[str, Any]:
    try:
        r = _resolve_with_pint(text)
    except UnitError as e:
        return {"error": str(e)}
    return {"canonical": r.canonical, "dimensionality": r.dimensionality, "invented": r.invented}


def _resolve_with_pint(text: str) -> ResolvedUnit:
    ureg = registry()
    import pint

    if text in _INVENTED:
        unit = ureg.Unit(text)
        return ResolvedUnit(text, str(unit), str(unit.dimensionality), invented=True)
    try:
        unit = ureg.Unit(text)
        return ResolvedUnit(text, str(unit), str(unit.dimensionality))
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, ValueError,
            AttributeError, TypeError, AssertionError):
        pass
    except Exception:  # pint raises odd errors on odd input
        pass
    if not _IDENT.match(text):
        raise UnitError(f"'{text}' is not a unit pint knows, nor a unit name")
    ureg.define(f"{text} = [{text}_dim]")
    _INVENTED.add(text)
    unit = ureg.Unit(text)
    return ResolvedUnit(text, str(unit), str(unit.dimensionality), invented=True)


def same_unit(a: ResolvedUnit, b: ResolvedUnit) -> bool:
    from tacit_gen.contract.unit_table import UNITS

    if a.text in UNITS and b.text in UNITS:  # single units: equal exactly when named alike
        return a.canonical == b.canonical
    return bool(unit_cache.cached("same_unit", (a.text, b.text), _INVENTED,
                                  lambda: bool(registry().Unit(a.text) == registry().Unit(b.text))))


def dimension_of(text: str) -> str | None:
    """The dimensionality for a declared dimension name (``pressure``, ``[pressure]``), or None."""
    name = text.strip().strip("[]").strip().lower().replace(" ", "_")
    aliases = {
        "currency": None,
        "currency_amount": None,
        "count": "dimensionless",
        "dimensionless": "dimensionless",
        "ratio": "dimensionless",
    }
    if name in aliases:
        return aliases[name]
    from tacit_gen.contract.unit_table import DIMENSIONS

    if name in DIMENSIONS:
        return DIMENSIONS[name]
    got = unit_cache.cached("dimension_of", (name,), _INVENTED, lambda: _dimension_with_pint(name))
    return None if got is None else str(got)


def _dimension_with_pint(name: str) -> str | None:
    try:
        dim = registry().get_dimensionality(f"[{name}]")
    except Exception:
        return None
    s = str(dim)
    return s if s != "dimensionless" or name == "dimensionless" else None


def dimension_matches(dimension: str, unit: ResolvedUnit) -> bool | None:
    """Whether a declared dimension fits the unit; None when the dimension name is unknown."""
    name = dimension.strip().strip("[]").strip().lower().replace(" ", "_")
    if name in ("currency", "currency_amount", "money"):
        return unit.is_currency
    dim = dimension_of(dimension)
    if dim is None:
        return None
    return dim == unit.dimensionality


def units_of_dimension(dimension: str) -> tuple[str, ...] | None:
    """The unit spellings of the shipped unit table (`unit_table.UNITS`) that have `dimension`,
    sorted; None when the dimension name is unknown. This finite list is what a catalog's unit
    is checked against in every target (a SQL `IN` list, a Python set), so all agree."""
    from tacit_gen.contract.unit_table import UNITS

    name = dimension.strip().strip("[]").strip().lower().replace(" ", "_")
    if name in ("currency", "currency_amount", "money"):
        return tuple(sorted(t for t, (_, dim, _) in UNITS.items() if dim.startswith("[currency_")))
    dim = dimension_of(dimension)
    if dim is None:
        return None
    return tuple(sorted(t for t, (_, d, _) in UNITS.items() if d == dim))


def multiply(a: str, b: str, op: str) -> str:
    """The unit text of a*b or a/b."""
    return str(unit_cache.cached("multiply", (a, b, op), _INVENTED, lambda: _multiply_with_pint(a, b, op)))


def _multiply_with_pint(a: str, b: str, op: str) -> str:
    ureg = registry()
    u = ureg.Unit(a) * ureg.Unit(b) if op == "*" else ureg.Unit(a) / ureg.Unit(b)
    return str(u)


def suffix_unit(column: str) -> str | None:
    """The unit a column name's suffix spells (``value_degc`` -> ``degC``), if any."""
    if "_" not in column:
        return None
    return SUFFIX_UNITS.get(column.rsplit("_", 1)[1].lower())


# What the shipped table holds: every unit a suffix spells, every currency and count unit, the
# common SI units, and the bundled contracts' own unit pint does not know.
TABLE_UNITS = (
    *SUFFIX_UNITS.values(), *ISO_4217, *CURRENCY_WORDS, *COUNT_UNITS,
    *(f"{u}s" for u in COUNT_UNITS),
    "m", "s", "g", "kg", "min", "h", "hour", "day", "second", "minute", "ms", "us", "ns",
    "K", "degC", "degF", "kelvin", "Pa", "kPa", "MPa", "hPa", "bar", "mbar", "psi", "atm",
    "V", "mV", "kV", "A", "mA", "W", "kW", "MW", "GW", "Wh", "kWh", "MWh", "J", "kJ", "MJ",
    "Hz", "kHz", "MHz", "rpm", "percent", "ppm", "dimensionless", "L", "l", "mL",
    "m/s", "km/h", "m^3", "m**3", "mm", "cm", "km", "N", "kN",
    "base_units_per_venue_contract",
)
TABLE_DIMENSIONS = (
    "length", "time", "mass", "temperature", "current", "substance", "luminosity", "pressure",
    "energy", "power", "frequency", "velocity", "speed", "volume", "area", "force", "voltage",
    "electric_potential", "acceleration", "density", "charge",
)


def table_source() -> str:
    """The text of `unit_table.py`, computed with pint (see the module docstring)."""
    lines = ['"""Units and dimension names as pint resolves them, computed by',
             "``python -m tacit_gen.contract.units > tacit_gen/contract/unit_table.py`` (do not",
             'edit; tests/contract/test_unit_table.py recomputes it with the installed pint)."""',
             "", "from __future__ import annotations", "",
             "# unit text -> (canonical, dimensionality, invented: pint does not know it)",
             "UNITS: dict[str, tuple[str, str, bool]] = {"]
    for text in sorted(set(TABLE_UNITS)):
        r = _resolve_with_pint(text)
        lines.append(f"    {text!r}: ({r.canonical!r}, {r.dimensionality!r}, {r.invented}),")
    lines += ["}", "", "# a declared dimension name -> its dimensionality (None: not a dimension)",
              "DIMENSIONS: dict[str, str | None] = {"]
    for name in sorted(set(TABLE_DIMENSIONS)):
        try:
            dim: str | None = str(registry().get_dimensionality(f"[{name}]"))
        except Exception:
            dim = None
        if dim == "dimensionless":
            dim = None
        lines.append(f"    {name!r}: {dim!r},")
    lines += ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.stdout.write(table_source())
