"""`DataFrame[S]`: an ibis `Table` that has passed `S.cast()` or `S.parse()`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

import ibis.expr.types as ir

if TYPE_CHECKING:
    from tacit_gen.runtime.schema import Schema

S = TypeVar("S", bound="Schema")


# mypy sees ibis' Table as Any (ibis ships no py.typed and decorates Table with the untyped
# `@public`), and a class with an Any base is assignable to everything: DataFrame[A] would pass
# where DataFrame[B] is expected. So mypy (which treats `MYPY` like TYPE_CHECKING) gets a
# Generic class of its own whose attributes are Any; pyright and the runtime get the real
# ibis subclass.
MYPY = False
if MYPY:

    class DataFrame(Generic[S]):  # pyright: ignore[reportRedeclaration]
        """An ibis Table checked against schema ``S`` (the mypy view)."""

        @classmethod
        def _wrap(cls, table: ir.Table, schema: type[S]) -> DataFrame[S]: ...

        @property
        def tacit_schema(self) -> type[S]: ...

        def __getattr__(self, name: str) -> Any: ...

        def __getitem__(self, key: Any) -> Any: ...

else:

    class DataFrame(ir.Table, Generic[S]):
        """An ibis Table checked against schema ``S``.

        It is a real `ibis.expr.types.Table` (it wraps the same expression node), so every ibis method
        works on it; those methods return plain Tables, since a transformation may break the schema.
        `S.cast(result)` brings a result back into the typed world.
        """

        __slots__ = ("_tacit_schema",)

        @classmethod
        def _wrap(cls, table: ir.Table, schema: type[S]) -> DataFrame[S]:
            df: DataFrame[S] = cls(table.op())
            object.__setattr__(df, "_tacit_schema", schema)
            return df

        @property
        def tacit_schema(self) -> type[S]:
            """The Schema subclass this table was checked against."""
            return object.__getattribute__(self, "_tacit_schema")  # type: ignore[no-any-return]
