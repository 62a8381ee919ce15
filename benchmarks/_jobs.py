"""What a section hands the runner: jobs that each time one case and return its row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Job:
    section: str
    label: str
    run: Callable[[], dict[str, Any]]


def with_sync(f: Callable[[], Any], sync: Callable[[], Any] | None) -> Callable[[], Any]:
    """``f`` followed by ``sync()`` (the queue's wait) so a call includes its kernel."""
    if sync is None:
        return f

    def call() -> None:
        f()
        sync()

    return call


def has_all(ns: Any, names: tuple[str, ...]) -> bool:
    return all(hasattr(ns, n) for n in names)


def missing_names(ns: Any, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if not hasattr(ns, n)]
