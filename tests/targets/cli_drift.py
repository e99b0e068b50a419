"""The drift tests' two CLI steps: render one contract into a scratch folder, then `check` it
there (JSON findings). Shared by the clause-kind drift tests of this folder."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tacit_gen.cli import main


def render_to(contract: Path, tmp: Path) -> Path:
    """`tacit-gen render CONTRACT --out TMP/generated`; the output folder."""
    out = tmp / "generated"
    res = CliRunner().invoke(main, ["render", str(contract), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def check_json(contract: Path, out: Path) -> tuple[int, str]:
    """`tacit-gen check CONTRACT --out OUT --no-bump-gate --format json`: exit code, output."""
    res = CliRunner().invoke(main, ["check", str(contract), "--out", str(out), "--no-bump-gate",
                                    "--format", "json"])
    return res.exit_code, res.output
