"""Static typing of DataFrame[S]: mypy and pyright accept the good pipeline and reject the bad one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OK = HERE / "pipeline_ok.py"
BAD = HERE / "pipeline_bad.py"


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy() -> None:
    base = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
            "--no-error-summary", "--hide-error-context", "--no-pretty"]
    ok = _run([*base, str(OK.relative_to(ROOT))])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _run([*base, str(BAD.relative_to(ROOT))])
    assert bad.returncode == 1
    assert bad.stdout.strip().splitlines() == [
        'tests/typing/pipeline_bad.py:28: error: Argument 1 to "report" has incompatible type '
        '"DataFrame[Raw]"; expected "DataFrame[Features]"  [arg-type]'
    ]


def test_pyright() -> None:
    exe = shutil.which("pyright", path=str(Path(sys.executable).parent)) or shutil.which("pyright")
    assert exe is not None, "pyright is part of the dev extra; a missing checker is not a pass"
    ok = _run([exe, str(OK)])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _run([exe, "--outputjson", str(BAD)])
    assert bad.returncode == 1, bad.stdout + bad.stderr
    import json

    diags = json.loads(bad.stdout)["generalDiagnostics"]
    assert [(d["range"]["start"]["line"] + 1, d["rule"]) for d in diags] == [
        (28, "reportArgumentType")
    ]
    assert '"DataFrame[Raw]" cannot be assigned to parameter "df" of type "DataFrame[Features]"' in (
        diags[0]["message"]
    )
