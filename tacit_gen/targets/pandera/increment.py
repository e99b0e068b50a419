"""The increment for a pandera schema (docs/engines/pandera.md#increments): the frame to validate
is the increment (the rows whose time column is at or after `since`, or NULL) plus the boundary
rows it needs: each series' last point before `since` (cadence steps from it) and the earlier
rows repeating a key of the increment (the key must not repeat). Validate that frame, then keep
only the failures on the increment's rows (`increment_failures`): a boundary row's own row
failures belong to the history, which was checked when it arrived.

`split_increment` takes the whole relation as a pandas frame; on a large table select the same
rows in SQL first (the increment, one row per series `max(t) where t < since group by series`,
and the keys of the increment semi-joined to the table) and pass them instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    import pandas as pd

    from tacit_gen.contract.model import Contract


def split_increment(frame: pd.DataFrame, contract: Contract,
                    since: datetime) -> tuple[pd.DataFrame, set[Any]]:
    """(the increment plus its boundary rows, the labels of the boundary rows)."""
    import pandas as pd

    if contract.time is None or not contract.time.column:
        raise ValueError(f"contract {contract.name} has no time column: no increment to select")
    col = contract.time.column
    t = frame[col]
    newer = ((t >= pd.Timestamp(since)).fillna(False).astype(bool) | t.isna()).to_numpy(dtype=bool)
    new_labels = list(frame.index[newer])
    older = frame.iloc[[i for i, n in enumerate(newer) if not n]]
    keep = set(new_labels)
    series = [c for c in contract.series_key if c in frame.columns]
    if len(older):
        if series:
            last = older.groupby(series, dropna=True, sort=False)[col].transform("max")
        else:
            last = pd.Series(older[col].max(), index=older.index)
        at_last = (older[col] == last).fillna(False).astype(bool).to_numpy(dtype=bool)
        keep |= set(older.index[at_last])
        key = [c for c in contract.key if c in frame.columns]
        if key:
            new_keys = frame.loc[new_labels, key].dropna().drop_duplicates()
            if len(new_keys):
                marked = older.assign(_tacit_label=list(older.index))
                keep |= set(marked.merge(new_keys, on=key, how="inner")["_tacit_label"])
    chosen = frame.loc[[label for label in frame.index if label in keep]]
    fresh = set(new_labels)
    return chosen, {label for label in chosen.index if label not in fresh}


def increment_failures(rows: dict[str, set[Any]], boundary: set[Any]) -> dict[str, set[Any]]:
    """The failing row labels per clause without the boundary rows' (clauses left without a
    failing row pass)."""
    return {cid: kept for cid, labels in rows.items() if (kept := labels - boundary)}
