"""The clauses each target declares unsupported at render, per parity contract, pinned.

The parity suites accept `n/a` from a target exactly where it is pinned here: a renderer that
starts declaring a clause unsupported (or stops) fails `tests.parity.harness.unsupported` until this
table says so, and a target without an entry here fails it too (a new target declares what it
cannot check, contract by contract). Regenerate only after reading the difference.
"""

from __future__ import annotations

UNSUPPORTED: dict[str, dict[str, tuple[str, ...]]] = {
    "fct_sensor_readings": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "fixed_value:unit",
            "freshness:event_ts",
            "invariant:value_degc is null only when quality = bad",
            "range:revision",
            "range:value_degc",
            "unique:series_id,event_ts,revision",
        ),
        "protobuf": (
            "freshness:event_ts",
            "unique:series_id,event_ts,revision",
        ),
        "jsonschema": (
            "freshness:event_ts",
            "unique:series_id,event_ts,revision",
        ),
    },
    "ohlcv_1m": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "cadence:bar_start",
            "fixed_value:adjusted",
            "invariant:low <= close <= high",
            "invariant:low <= open <= high",
            "range:revision",
            "range:trade_count",
            "range:volume",
            "unique:symbol,bar_start,revision",
        ),
        "protobuf": (
            "cadence:bar_start",
            "invariant:low <= close <= high",
            "invariant:low <= open <= high",
            "unique:symbol,bar_start,revision",
        ),
        "jsonschema": (
            "cadence:bar_start",
            "invariant:low <= close <= high",
            "invariant:low <= open <= high",
            "unique:symbol,bar_start,revision",
        ),
    },
    "plant_sensor_reading": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "cadence:event_ts",
            "catalog_bounds:value",
            "catalog_unit:unit",
            "completeness:event_ts",
            "invariant:value is null only when quality = bad",
            "pattern:series_id",
            "range:revision",
            "unique:series_id,event_ts,revision",
        ),
        "protobuf": (
            "cadence:event_ts",
            "catalog_bounds:value",
            "catalog_unit:unit",
            "completeness:event_ts",
            "unique:series_id,event_ts,revision",
        ),
        "jsonschema": (
            "cadence:event_ts",
            "catalog_bounds:value",
            "catalog_unit:unit",
            "completeness:event_ts",
            "unique:series_id,event_ts,revision",
        ),
    },
    "line_pressure": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "catalog_bounds:value",
            "plausible:value",
            "unique:series_id,event_ts",
        ),
        "protobuf": (
            "catalog_bounds:value",
            "plausible:value",
            "unique:series_id,event_ts",
        ),
        "jsonschema": (
            "catalog_bounds:value",
            "plausible:value",
            "unique:series_id,event_ts",
        ),
    },
    "pressure_by_catalog_unit": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "catalog_bounds:value",
            "catalog_dimension:value",
            "catalog_unit:unit",
            "unique:series_id,event_ts",
        ),
        "protobuf": (
            "catalog_bounds:value",
            "catalog_dimension:value",
            "catalog_unit:unit",
            "unique:series_id,event_ts",
        ),
        "jsonschema": (
            "catalog_bounds:value",
            "catalog_dimension:value",
            "catalog_unit:unit",
            "unique:series_id,event_ts",
        ),
    },
    "series_clauses": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "pattern:series_id",
            "range:revision",
            "revision_by:revised_by",
            "unique:series_id,event_ts,revision",
        ),
        "protobuf": (
            "revision_by:revised_by",
            "unique:series_id,event_ts,revision",
        ),
        "jsonschema": (
            "revision_by:revised_by",
            "unique:series_id,event_ts,revision",
        ),
    },
    "orders": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "range:amount",
            "references:customer_id",
            "unique:order_id",
        ),
        "protobuf": (
            "references:customer_id",
            "unique:order_id",
        ),
        "jsonschema": (
            "references:customer_id",
            "unique:order_id",
        ),
    },
    "bars_per_session": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
        "protobuf": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
        "jsonschema": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
    },
    "bars_per_venue_session": {
        "dbt": (),
        "soda": (),
        "soda4": (),
        "gx": (),
        "pandera": (),
        "ibis": (),
        "avro": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
        "protobuf": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
        "jsonschema": (
            "cadence:bar_start",
            "completeness:bar_start",
            "unique:symbol,bar_start",
        ),
    },
}
