"""A pipeline that passes DataFrame[Raw] where DataFrame[Features] is expected: a type error."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

import ibis.expr.types as ir

from tacit_gen.runtime import Column, DataFrame, Schema, contract


class Raw(Schema):
    sepal_length: Annotated[Decimal, Column(type="decimal(6,2)", nullable=False)]


class Features(Schema):
    sepal_ratio: Annotated[float | None, Column(type="float64")]


@contract
def report(df: DataFrame[Features]) -> DataFrame[Features]:
    return df


def pipeline(table: ir.Table) -> None:
    raw = Raw.cast(table)
    report(raw)  # the error: DataFrame[Raw] is not DataFrame[Features]
