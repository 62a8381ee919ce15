"""Peer-copy bandwidth between two GPUs: usmarray's ``to_device("cuda:1")``
against CuPy's ``cupy.cuda.runtime.memcpyPeer`` in one process, medians of interleaved
rounds, with the A/A noise (memcpyPeer against itself).

``python -m benchmarks.multigpu [--sizes 2**20,2**24,2**28] [--rounds 15]``; prints why it
does nothing on a machine with fewer than two GPUs.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.multigpu", description=__doc__)
    p.add_argument("--sizes", default="2**20,2**24,2**28", help="float32 element counts")
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args(argv)
    try:
        import cupy
    except ImportError:
        print("multigpu: CuPy is not installed; nothing to measure")
        return 0
    import usmarray as xp
    from usmarray import _backend

    be = _backend.get_backend("cuda")
    if be is None or len(be.devices()) < 2:
        print("multigpu: fewer than two CUDA GPUs here; nothing to measure")
        return 0
    names = [cupy.cuda.runtime.getDeviceProperties(i)["name"].decode() for i in range(2)]
    peer = cupy.cuda.runtime.deviceCanAccessPeer(0, 1)
    print(f"GPUs: {names}; cudaDeviceCanAccessPeer(0, 1) = {peer}")
    if peer:  # the same direct path for both sides (usmarray enables it on first use)
        for dst, src in ((1, 0), (0, 1)):
            with cupy.cuda.Device(dst):
                try:
                    cupy.cuda.runtime.deviceEnablePeerAccess(src)
                except cupy.cuda.runtime.CUDARuntimeError:
                    pass  # already enabled
    print(f"{'n':>12s} {'usm GB/s':>10s} {'cupy GB/s':>10s} {'usm/cupy':>9s} {'A/A':>6s}")
    for n in (int(eval(s, {})) for s in args.sizes.split(",")):  # noqa: S307 - "2**20" sizes
        x = xp.ones(n, dtype=xp.float32, device="cuda:0")
        with cupy.cuda.Device(0):
            src = cupy.ones(n, dtype=cupy.float32)
        with cupy.cuda.Device(1):
            dst = cupy.empty(n, dtype=cupy.float32)
        nbytes = 4 * n

        def ours(x: object = x) -> None:
            y = x.to_device("cuda:1")  # type: ignore[attr-defined]
            y.device.wait()

        def theirs(dst: object = dst, src: object = src, nbytes: int = nbytes) -> None:
            cupy.cuda.runtime.memcpyPeer(dst.data.ptr, 1, src.data.ptr, 0, nbytes)  # type: ignore[attr-defined]
            with cupy.cuda.Device(1):
                cupy.cuda.runtime.deviceSynchronize()

        def clock(f) -> float:
            t = time.perf_counter()
            f()
            return time.perf_counter() - t

        a, b, b2 = [], [], []
        for _ in range(args.rounds):
            b.append(clock(theirs))
            a.append(clock(ours))
            b2.append(clock(theirs))
        ma, mb, mb2 = map(statistics.median, (a, b, b2))
        print(f"{n:12d} {nbytes / ma / 1e9:10.1f} {nbytes / mb / 1e9:10.1f} {mb / ma:9.3f} "
              f"{mb2 / mb:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
