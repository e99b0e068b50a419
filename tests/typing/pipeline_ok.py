"""A correctly typed pipeline: mypy and pyright must report no error here."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

import ibis
import ibis.expr.types as ir

from tacit_gen.runtime import Column, DataFrame, Schema, contract


class Raw(Schema):
    sepal_length: Annotated[Decimal, Column(type="decimal(6,2)", nullable=False)]
    sepal_width: Annotated[Decimal, Column(type="decimal(6,2)", nullable=False)]


class Features(Raw):
    sepal_ratio: Annotated[float | None, Column(type="float64")]


@contract
def clean(df: DataFrame[Raw]) -> DataFrame[Raw]:
    # ibis' own stubs type `df.col` as a bare Column (no operators): use the deferred `_`
    return Raw.cast(df.filter(ibis._.sepal_width > 0))


@contract(returns=Features)
def engineer(df: DataFrame[Raw], factor: int = 1) -> ir.Table:
    return df.mutate(sepal_ratio=(ibis._.sepal_length / ibis._.sepal_width) * factor)


@contract(validate=True)
def validated(df: DataFrame[Features]) -> DataFrame[Features]:
    return df


def pipeline(table: ir.Table) -> DataFrame[Features]:
    raw: DataFrame[Raw] = Raw.cast(table)
    features = engineer(clean(raw), factor=2)
    out: DataFrame[Features] = validated(features)
    plain: ir.Table = out  # a DataFrame is an ibis Table
    return Features.cast(plain)
