"""Where a benchmark run writes when no ``--out`` is given.

Runs go to ``build/benchmarks/<date>-<name>/`` at the repository's root (ignored by git),
so a run, CI's quick one included, never adds a folder to ``benchmarks/results/``.  The
committed results are one folder per machine kind there: copy a run's files into
``benchmarks/results/<kind>/`` and run ``python -m benchmarks.report_performance``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_dir(name: str) -> Path:
    """``build/benchmarks/<today>-<name>`` under the repository's root."""
    return ROOT / "build" / "benchmarks" / f"{_dt.date.today().isoformat()}-{name}"
