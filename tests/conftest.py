"""Test-wide setup: every engine offline, telemetry off, before any engine is imported."""

from __future__ import annotations

import os
from pathlib import Path

for _k, _v in {
    "DO_NOT_TRACK": "1",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    "GX_ANALYTICS_ENABLED": "false",
    "SCARF_NO_ANALYTICS": "true",
}.items():
    os.environ.setdefault(_k, _v)
# The version gate reads CI / GITHUB_BASE_REF: tests set them where they mean to, never inherit them.
for _k in ("CI", "GITHUB_BASE_REF"):
    os.environ.pop(_k, None)

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"
BUNDLED = sorted(CONTRACTS.glob("*.yaml"))
