# ruff: noqa: B023  (timed closures are called inside the loop that defines them)
"""Fusion benchmark: ``usmarray.fuse`` against the unfused namespace and
the fusers of CuPy and PyTorch; ratios of medians of interleaved rounds in one
process, the fused path timed twice (A/A) to show the noise.

``python -m benchmarks.fusion [--quick] [--sycl-only | --cuda-only]``

Chains: the issue's 6-op chain ``clip((a*b + c) * 0.5, -1, 1) + sin(a) - c``, the
3-input ``a * x + y`` (``a`` an array) and a sum of squares ``sum(x * x)``.

- SYCL (OpenCL CPU device): host time per call (each call returns when its kernels
  have run) for 100 elements (fused, unfused, one raw ``queue.submit`` of the fused
  kernel and one namespace ``x + y``) and for 10**7 elements (fused against unfused).
- CUDA: effective TB/s (3 inputs + 1 output of float32 per element; the sum of squares
  counts 1 input) from CUDA events, 2**26 float32 (``--quick``: 2**24), against the
  unfused namespace, one hand-written ``cupy.ElementwiseKernel``, ``cupy.fuse``,
  PyTorch eager and ``torch.compile`` (each where installed); the first call's time of
  ``usmarray.fuse`` (trace + NVRTC compile, or CuPy's disk cache when warm) beside
  ``torch.compile``'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import usmarray as xp

from .kernels import cuda_timed, host_loop, report, rounds, run_sections


def chain(a, b, c):
    return xp.clip((a * b + c) * 0.5, -1, 1) + xp.sin(a) - c


def axpy(a, x, y):
    return a * x + y


def sumsq(x):
    return xp.sum(x * x)


def _first_call(f: Callable[[], object], sync: Callable[[], object]) -> float:
    t = time.perf_counter()
    f()
    sync()
    return time.perf_counter() - t


def sycl_section(quick: bool) -> None:
    d = xp.Device.create_device("opencl:cpu")
    q = d.sycl_queue
    print(f"SYCL: {d!r} {q.sycl_device.name}, provider {xp.provider}")
    rng = np.random.default_rng(0)
    wait = q.wait
    for n in (100, 10**6 if quick else 10**7):
        a, b, c = (xp.asarray(rng.standard_normal(n).astype(np.float32), device=d)
                   for _ in range(3))
        fchain, faxpy, fss = xp.fuse(chain), xp.fuse(axpy), xp.fuse(sumsq)
        first = _first_call(lambda: fchain(a, b, c), wait)
        for f, args in ((fchain, (a, b, c)), (faxpy, (a, b, c)), (fss, (a,))):
            f(*args)
            f(*args)
            assert f.stats["fused"] >= 1, f
        small = n <= 1000
        inner, rn = ((100, 9) if quick else (300, 21)) if small else ((1, 5) if quick else (2, 11))
        variants = {
            "fused chain": host_loop(lambda: fchain(a, b, c), wait, inner),
            "fused chain (A/A)": host_loop(lambda: fchain(a, b, c), wait, inner),
            "unfused chain": host_loop(lambda: chain(a, b, c), wait, inner),
            "fused a*x+y": host_loop(lambda: faxpy(a, b, c), wait, inner),
            "unfused a*x+y": host_loop(lambda: axpy(a, b, c), wait, inner),
            "fused sum(x*x)": host_loop(lambda: fss(a), wait, inner),
            "unfused sum(x*x)": host_loop(lambda: sumsq(a), wait, inner),
        }
        if small:
            plan = next(iter(fchain._plans.values()))[1]
            k1 = plan.kernel._kernel(1)
            var = next(v for key, v in k1._variants.items() if key[2])
            out = xp.empty(n, dtype=xp.float32, device=d)
            packed = var.launch.pack([a._arr, b._arr, c._arr, *plan.consts, out._arr], ())
            packed = getattr(packed, "args", packed)  # SyclQueue.submit's form
            variants["one raw queue.submit (fused kernel)"] = host_loop(
                lambda: q.submit(var.launch.kernel, packed, [n]), wait, inner)
            variants["namespace x + y"] = host_loop(lambda: a + b, wait, inner)
        med = rounds(variants, rn)
        report(f"{n} float32 (host us per call; first fused call {first * 1e3:.1f} ms)", med,
               "fused chain")
        print(f"  unfused / fused: chain {med['unfused chain'] / med['fused chain']:.2f}x, "
              f"a*x+y {med['unfused a*x+y'] / med['fused a*x+y']:.2f}x, sum(x*x) "
              f"{med['unfused sum(x*x)'] / med['fused sum(x*x)']:.2f}x; A/A "
              f"{med['fused chain (A/A)'] / med['fused chain']:.3f}")
        if small:
            print(f"  fused chain / one raw submit: "
                  f"{med['fused chain'] / med['one raw queue.submit (fused kernel)']:.2f}x; "
                  f"fused chain / namespace x + y: {med['fused chain'] / med['namespace x + y']:.2f}x")


def cuda_section(quick: bool) -> None:
    import cupy

    d = xp.Device.create_device("cuda:0")
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    print(f"\nCUDA: {d!r} {name.decode() if isinstance(name, bytes) else name}, "
          f"CuPy {cupy.__version__}")
    n = 1 << (24 if quick else 26)
    rng = np.random.default_rng(0)
    a, b, c = (xp.asarray(rng.standard_normal(n).astype(np.float32), device=d) for _ in range(3))
    ac, bc, cc = a._arr, b._arr, c._arr
    sync = cupy.cuda.get_current_stream().synchronize
    fchain, faxpy, fss = xp.fuse(chain), xp.fuse(axpy), xp.fuse(sumsq)
    first = {"usmarray.fuse chain": _first_call(lambda: fchain(a, b, c), sync)}
    fchain(a, b, c)
    faxpy(a, b, c)
    faxpy(a, b, c)
    fss(a)
    fss(a)
    assert fchain.stats["fused"] and faxpy.stats["fused"] and fss.stats["fused"]
    # fused == unfused, bit for bit (the property tests' claim, at this size)
    diff = int(xp.count_nonzero(fchain(a, b, c) != chain(a, b, c)))
    print(f"  fused chain vs unfused: {diff} of {n} elements differ")
    same = bool(xp.all(fss(a) == sumsq(a)))
    print(f"  fused sum(x*x) == unfused: {same}")

    hand = cupy.ElementwiseKernel(
        "float32 a, float32 b, float32 c", "float32 z",
        "float t = __fmul_rn(__fadd_rn(__fmul_rn(a, b), c), 0.5f);"
        "t = t < -1.0f ? -1.0f : (t > 1.0f ? 1.0f : t);"
        "z = __fsub_rn(__fadd_rn(t, sinf(a)), c)", "hand_chain")
    hand_axpy = cupy.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z",
                                       "z = __fadd_rn(__fmul_rn(a, x), y)", "hand_axpy")

    def cp_chain(a, b, c):
        return cupy.clip((a * b + c) * 0.5, -1, 1) + cupy.sin(a) - c

    def cp_axpy(a, x, y):
        return a * x + y

    def cp_sumsq(x):
        return cupy.sum(x * x)

    cp_chain, cp_axpy, cp_sumsq = (cupy.fuse()(f) for f in (cp_chain, cp_axpy, cp_sumsq))

    timed = cuda_timed
    # compile CuPy's fused kernels before any timing
    cp_chain(ac, bc, cc)
    cp_axpy(ac, bc, cc)
    cp_sumsq(ac)
    v_chain = {
        "usmarray.fuse": timed(lambda: fchain(a, b, c)),
        "usmarray.fuse (A/A)": timed(lambda: fchain(a, b, c)),
        "usmarray unfused": timed(lambda: chain(a, b, c)),
        "hand-written ElementwiseKernel": timed(lambda: hand(ac, bc, cc)),
        "cupy.fuse": timed(lambda: cp_chain(ac, bc, cc)),
    }
    v_axpy = {
        "usmarray.fuse": timed(lambda: faxpy(a, b, c)),
        "usmarray.fuse (A/A)": timed(lambda: faxpy(a, b, c)),
        "usmarray unfused": timed(lambda: axpy(a, b, c)),
        "hand-written ElementwiseKernel": timed(lambda: hand_axpy(ac, bc, cc)),
        "cupy.fuse": timed(lambda: cp_axpy(ac, bc, cc)),
    }
    v_ss = {
        "usmarray.fuse": timed(lambda: fss(a)),
        "usmarray.fuse (A/A)": timed(lambda: fss(a)),
        "usmarray unfused": timed(lambda: sumsq(a)),
        "cupy.fuse": timed(lambda: cp_sumsq(ac)),
    }
    try:
        import torch

        ta, tb, tc = (torch.as_tensor(v, device="cuda") for v in (ac, bc, cc))

        def t_chain(a, b, c):
            return torch.clamp((a * b + c) * 0.5, -1, 1) + torch.sin(a) - c

        def t_axpy(a, x, y):
            return a * x + y

        def t_ss(x):
            return torch.sum(x * x)

        tc_chain, tc_axpy, tc_ss = (torch.compile(f) for f in (t_chain, t_axpy, t_ss))
        first["torch.compile chain"] = _first_call(lambda: tc_chain(ta, tb, tc), sync)
        tc_axpy(ta, tb, tc)
        tc_ss(ta)
        v_chain["PyTorch eager"] = timed(lambda: t_chain(ta, tb, tc))
        v_chain["torch.compile"] = timed(lambda: tc_chain(ta, tb, tc))
        v_axpy["PyTorch eager"] = timed(lambda: t_axpy(ta, tb, tc))
        v_axpy["torch.compile"] = timed(lambda: tc_axpy(ta, tb, tc))
        v_ss["PyTorch eager"] = timed(lambda: t_ss(ta))
        v_ss["torch.compile"] = timed(lambda: tc_ss(ta))
    except Exception as exc:  # not installed, or no compiler toolchain for inductor
        print(f"  (PyTorch left out: {type(exc).__name__}: {str(exc)[:120]})")
    rn = 7 if quick else 15
    for title, variants, nbytes in (
            ("clip((a*b + c) * 0.5, -1, 1) + sin(a) - c", v_chain, 16 * n),
            ("a * x + y", v_axpy, 16 * n), ("sum(x * x)", v_ss, 4 * n)):
        med = rounds(variants, rn)
        print(f"\n{title}, {n} float32 (effective TB/s, {nbytes // n} bytes per element)")
        base = med["usmarray.fuse"]
        for k, v in med.items():
            print(f"  {k:32s} {nbytes / v / 1e12:8.3f} TB/s   usmarray.fuse rate / this: "
                  f"{v / base:.3f}")
    for k, v in first.items():
        print(f"  first call, {k}: {v:.3f} s")


def main() -> None:
    run_sections(__doc__, sycl_section, cuda_section)


if __name__ == "__main__":
    main()
