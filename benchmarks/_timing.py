"""Interleaved timing: every variant of one case is timed in the same loop.

A *round* times each variant once (a batch of ``inner`` calls, divided by
``inner``); the order of the variants rotates from round to round, so a drift of
the machine (another process, frequency scaling, a cold cache) touches every
variant alike.  Rounds go on until both ``min_rounds`` and the time budget are
reached.  The statistic reported is the median of the per-call samples; the
ratio of two variants is the ratio of their medians.

Callables passed here must include their own synchronisation (``q.wait()``)
where the work is asynchronous, so a sample includes the kernel.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_now = time.perf_counter


@dataclass
class Stats:
    """Per-call samples of one variant, in seconds."""

    samples: list[float] = field(default_factory=list)
    inner: int = 1
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else math.nan

    def quantile(self, q: float) -> float:
        if not self.samples:
            return math.nan
        s = sorted(self.samples)
        i = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
        return s[i]

    def as_dict(self) -> dict[str, Any]:
        if not self.ok:
            return {"error": self.error or "no samples"}
        return {
            "median_s": self.median,
            "p25_s": self.quantile(0.25),
            "p75_s": self.quantile(0.75),
            "min_s": min(self.samples),
            "rounds": len(self.samples),
            "calls_per_sample": self.inner,
        }


def describe_error(exc: BaseException) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else ""
    msg = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return "n/a (error: " + (msg if len(msg) <= 70 else msg[:67] + "...") + ")"


def _calibrate(fn: Callable[[], Any], target_s: float, max_inner: int) -> tuple[int, float]:
    """(calls per sample so that one sample lasts about ``target_s``, seconds per call)."""
    n = 1
    while True:
        t0 = _now()
        for _ in range(n):
            fn()
        el = _now() - t0
        if el >= target_s / 4 or n >= max_inner:
            break
        n *= 4
    if el <= 0:
        return max_inner, 0.0
    return max(1, min(max_inner, round(n * target_s / el))), el / n


def measure(
    fns: dict[str, Callable[[], Any] | None],
    *,
    budget_s: float = 1.0,
    min_rounds: int = 5,
    max_rounds: int = 400,
    target_sample_s: float = 2e-3,
    max_inner: int = 2000,
    warmup: int = 2,
    slow_call_s: float = 1.0,
    clock: Callable[[], float] = _now,
) -> dict[str, Stats]:
    """Time every callable of ``fns`` interleaved; a value of None is skipped.

    ``clock`` reads the time: wall-clock by default, ``time.thread_time`` for the CPU
    time of the calling thread alone (host-side calls on a shared machine).

    A callable that raises during warm-up is reported with its error and left out
    of the rounds; the others go on.  When one call of some variant takes longer
    than ``slow_call_s``, three rounds are enough (a sort of 10**7 elements).
    """
    out: dict[str, Stats] = {}
    live: list[str] = []
    slowest = 0.0
    for name, fn in fns.items():
        st = Stats()
        out[name] = st
        if fn is None:
            st.error = "n/a (missing)"
            continue
        try:
            for _ in range(warmup):
                fn()
            st.inner, per_call = _calibrate(fn, target_sample_s, max_inner)
            slowest = max(slowest, per_call)
        except Exception as exc:  # the row says why, the suite goes on
            st.error = describe_error(exc)
            continue
        live.append(name)
    if not live:
        return out
    if slowest > slow_call_s:
        min_rounds = min(min_rounds, 3)
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        start = _now()
        r = 0
        while r < max_rounds and (r < min_rounds or _now() - start < budget_s):
            k = r % len(live)
            order = live[k:] + live[:k]
            if (r // len(live)) % 2:
                order.reverse()
            for name in order:
                fn = fns[name]
                st = out[name]
                n = st.inner
                t0 = clock()
                for _ in range(n):
                    fn()
                st.samples.append((clock() - t0) / n)
            r += 1
    finally:
        if was_enabled:
            gc.enable()
    return out


def ratio(a: Stats | None, b: Stats | None) -> float:
    """median(a) / median(b), NaN when either is missing."""
    if a is None or b is None or not a.ok or not b.ok:
        return math.nan
    return a.median / b.median


def cuda_spinner() -> Callable[[float], None]:
    """``spin(seconds)``: queue a one-thread kernel on CuPy's current stream that runs
    for about ``seconds`` (cycles of the device's clock), so that the calls after it
    queue up behind it."""
    import cupy
    import numpy as np

    kernel = cupy.RawKernel(r'''extern "C" __global__ void k(long long n) {
      const long long t = clock64(); while (clock64() - t < n) {} }''', "k")
    rate = cupy.cuda.runtime.getDeviceProperties(0)["clockRate"] * 1e3  # Hz
    return lambda seconds: kernel((1,), (1,), (np.int64(int(seconds * rate)),))

