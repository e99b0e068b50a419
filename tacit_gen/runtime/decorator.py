"""`@contract`: cast (or parse) every ``DataFrame[S]`` parameter and the return value."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, overload

from tacit_gen.runtime.errors import ValidationError, ValidationPhase
from tacit_gen.runtime.inputs import Inputs

if TYPE_CHECKING:
    import ibis.expr.types as ir

    from tacit_gen.runtime.dataframe import DataFrame
    from tacit_gen.runtime.schema import Schema

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="Schema")
F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["contract"]


def _schema_of(annotation: Any) -> type[Schema] | None:
    """``S`` when the annotation is ``DataFrame[S]`` (also inside ``Annotated``), else None."""
    from tacit_gen.runtime.dataframe import DataFrame
    from tacit_gen.runtime.schema import Schema

    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is DataFrame:
        (arg,) = typing.get_args(annotation)
        if isinstance(arg, type) and issubclass(arg, Schema):
            return arg
    return None


class _Plan:
    def __init__(self, inputs: dict[str, type[Schema]], output: type[Schema] | None) -> None:
        self.inputs = inputs
        self.output = output


def _make_plan(fn: Callable[..., Any], returns: type[Schema] | None) -> _Plan:
    hints = typing.get_type_hints(fn, include_extras=True)
    inputs: dict[str, type[Schema]] = {}
    for name in inspect.signature(fn).parameters:
        if name in hints:
            s = _schema_of(hints[name])
            if s is not None:
                inputs[name] = s
    output = returns if returns is not None else _schema_of(hints.get("return"))
    return _Plan(inputs, output)


def _wrap(
    fn: Callable[..., Any],
    *,
    validate: bool,
    returns: type[Schema] | None,
    inputs: Inputs,
    refs: Mapping[str, ir.Table | str] | None = None,
) -> Callable[..., Any]:
    sig = inspect.signature(fn)
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    given = dict(refs or {})
    if given and not validate:
        raise TypeError(f"@contract on {name}: refs= is read by parse(): pass validate=True too "
                        "(cast() checks structure only, never a foreign key)")
    for arg, value in (("sessions", inputs.sessions), ("outages", inputs.outages),
                       ("since", inputs.since)):
        if value is not None and not validate:
            raise TypeError(f"@contract on {name}: {arg}= is read by parse(): pass validate=True "
                            "too (cast() checks structure only)")
    for rel, value in given.items():
        if isinstance(value, str) and value not in sig.parameters:
            raise TypeError(f"@contract on {name}: refs[{rel!r}] = {value!r} names no parameter "
                            f"of the function (it has {', '.join(sig.parameters) or 'none'})")
    plan: _Plan | None = None
    try:
        plan = _make_plan(fn, returns)
    except NameError:
        plan = None  # annotations naming something defined later: resolve on the first call

    def check(schema: type[Schema], value: Any, phase: ValidationPhase, param: str,
              relations: Mapping[str, ir.Table] | None) -> Any:
        from tacit_gen.runtime.evaluate import parse_table

        try:
            if validate:
                return parse_table(schema, value, inputs.with_refs(relations))
            return schema.cast(value)
        except ValidationError as exc:
            raise exc.at_boundary(phase, name, param) from exc

    def relations_of(arguments: Mapping[str, Any]) -> dict[str, ir.Table] | None:
        """refs= with each parameter name replaced by that call's (checked) argument."""
        if not given:
            return None
        out: dict[str, ir.Table] = {}
        for rel, value in given.items():
            if not isinstance(value, str):
                out[rel] = value
            elif value in arguments:
                out[rel] = arguments[value]
        return out

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal plan
        if plan is None:
            plan = _make_plan(fn, returns)
        arguments: Mapping[str, Any] = {}
        if plan.inputs or given:
            bound = sig.bind(*args, **kwargs)
            arguments = bound.arguments
            for pname, schema in plan.inputs.items():
                if pname in bound.arguments:
                    bound.arguments[pname] = check(
                        schema, bound.arguments[pname], ValidationPhase.CONTRACT_INPUT, pname,
                        relations_of(bound.arguments),
                    )
            args, kwargs = bound.args, bound.kwargs  # type: ignore[assignment]
        result = fn(*args, **kwargs)
        if plan.output is not None:
            result = check(plan.output, result, ValidationPhase.CONTRACT_OUTPUT, "return",
                           relations_of(arguments))
        return result

    wrapper.__tacit_contract__ = {  # type: ignore[attr-defined]
        "validate": validate,
        "returns": returns,
        "refs": given,
    }
    return wrapper


@overload
def contract(fn: F, /) -> F: ...
@overload
def contract(
    *,
    validate: bool = ...,
    catalog: ir.Table | Mapping[str, ir.Table] | None = ...,
    now: datetime | None = ...,
    refs: Mapping[str, ir.Table | str] | None = ...,
    sessions: ir.Table | Mapping[str, ir.Table] | None = ...,
    outages: ir.Table | None = ...,
    since: datetime | None = ...,
) -> Callable[[F], F]: ...
@overload
def contract(
    *,
    returns: type[S],
    validate: bool = ...,
    catalog: ir.Table | Mapping[str, ir.Table] | None = ...,
    now: datetime | None = ...,
    refs: Mapping[str, ir.Table | str] | None = ...,
    sessions: ir.Table | Mapping[str, ir.Table] | None = ...,
    outages: ir.Table | None = ...,
    since: datetime | None = ...,
) -> Callable[[Callable[P, Any]], Callable[P, DataFrame[S]]]: ...
def contract(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    validate: bool = False,
    returns: type[Schema] | None = None,
    catalog: ir.Table | Mapping[str, ir.Table] | None = None,
    now: datetime | None = None,
    refs: Mapping[str, ir.Table | str] | None = None,
    sessions: ir.Table | Mapping[str, ir.Table] | None = None,
    outages: ir.Table | None = None,
    since: datetime | None = None,
) -> Any:
    """Check a function's ``DataFrame[S]`` inputs and output at the boundary.

    ``@contract`` casts (structure only, no query) every parameter annotated ``DataFrame[S]`` and
    the return value when annotated ``DataFrame[S]``; other parameters pass through unchanged.

    Args:
        validate: use ``S.parse()`` (conversion + constraint clauses, runs a query) instead of
            ``S.cast()``.
        returns: the output schema, so the body may be annotated ``-> ir.Table``; call sites see
            ``DataFrame[returns]``.
        catalog, now: passed to ``parse()`` when ``validate=True``.
        refs: the relations `references:` clauses read, passed to ``parse()`` (needs
            ``validate=True``; a TypeError otherwise): relation name -> a Table, or the name of
            a parameter of the function, whose argument of each call is the relation (e.g.
            ``refs={"customers": "customers"}`` when the function takes the customers table).
        sessions, outages: the exchange sessions relation (`time.calendar`) and the outages
            relation (`completeness` with allowed gap types), passed to ``parse()`` (need
            ``validate=True``; a TypeError otherwise).
        since: check only the increment of each ``DataFrame[S]`` (docs/increments.md), passed
            to ``parse()`` (needs ``validate=True``); a schema without a time column is a
            UsageError at the call.

    Raises (from the wrapped function):
        ValidationError subclasses with ``phase`` CONTRACT_INPUT (``parameter`` is the argument's
        name) or CONTRACT_OUTPUT (``parameter == "return"``), and ``function`` set.
    """
    if fn is not None:
        return _wrap(fn, validate=False, returns=None, inputs=Inputs())
    inputs = Inputs(catalog=catalog, now=now, sessions=sessions, outages=outages, since=since)

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        return _wrap(f, validate=validate, returns=returns, inputs=inputs, refs=refs)

    return decorate
