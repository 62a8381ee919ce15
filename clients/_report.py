"""Read the plugin's records, pair each usmarray test with its twins, group the
usmarray-only failures by cause and write the tables (Markdown).

A usmarray test is a *usmarray-only failure* when it failed (or errored) and its twin,
the same test with array-api-strict in place of usmarray, did not fail: it passed, was
skipped (SciPy and array-api-extra skip array-api-strict by name in places), or has no
twin.  Twins are found by erasing the namespace and its device from the test id
(scikit-learn's ids carry ``usmarray-None-float64`` for
``array_api_strict-CPU_DEVICE-float64`` and ``torch-cuda-float64``); a float64 test
whose twin runs only at the library's default dtype (scikit-learn's
``cupy-None-None``) is paired with that one.

Against the anchors (CuPy and PyTorch on the same CUDA device), each usmarray failure
is one of ``ANCHOR_CLASSES``: a twin passes on an anchor (to be fixed or explained),
every anchor twin that ran fails too, the anchors' twins were all skipped, or no
anchor has a twin.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")
PASSED = frozenset({"passed", "xpassed"})
FAILED = frozenset({"failed", "error"})

_NAMES = r"(?:usmarray|array_api_strict|cupy|torch(?::gpu)?|numpy)"
_NS = rf"(?<![\w.:]){_NAMES}"
_DEVICE = r"(?:None|CPU_DEVICE|device1|cpu|cuda|xpu|mps|gpu)"
_TWIN = [
    (re.compile(rf"array_namespace={_NAMES},device_name=[^,\]]*"), "NS"),
    (re.compile(rf"{_NS}-{_DEVICE}-(float64|float32|None)(?![\w:])"), r"NS-\1"),
    (re.compile(rf"{_NS}(?![\w:])"), "NS"),
]
_DEFAULT_DTYPE = [(re.compile(r"NS-float64(?![\w:])"), "NS-None"),
                  (re.compile(r"NS,dtype_name=float64"), "NS,dtype_name=None")]


def twin_key(nodeid: str) -> str:
    """The test id with its namespace (and scikit-learn's device) erased: the same for a
    test and its twins on every namespace."""
    base, bracket, params = nodeid.partition("[")
    for pat, rep in _TWIN:
        params = pat.sub(rep, params)
    return base + bracket + params


def _default_dtype_key(key: str) -> str:
    for pat, rep in _DEFAULT_DTYPE:
        key = pat.sub(rep, key)
    return key


def twin_outcomes(records: Iterable[dict]) -> dict[str, str]:
    """twin key -> outcome, for looking up twins with ``twin_outcome``."""
    return {twin_key(r["nodeid"]): r["outcome"] for r in records}


def twin_outcome(table: Mapping[str, str], nodeid: str) -> str | None:
    """The outcome of ``nodeid``'s twin in ``table`` (None: it has none); a float64 test
    falls back to the twin at the default dtype."""
    key = twin_key(nodeid)
    if key in table:
        return table[key]
    return table.get(_default_dtype_key(key))


@dataclass(frozen=True)
class Cause:
    key: str
    who: str  # where the fix belongs: "usmarray", "scikit-learn", "SciPy", ...
    pattern: re.Pattern[str]
    text: str


#: known causes of usmarray-only failures, first match wins (over message + frames)
CAUSES: list[Cause] = [
    Cause("scipy-special-host-fallback", "SciPy", re.compile(
        r"_support_alternative_backends\.py.*\n.*usmarray/_array\.py|"
        r"test_support_alternative_backends.*implicit conversion to a NumPy array", re.S),
        "SciPy's `scipy.special` runs a function on a library it has no native path for "
        "(CuPy, PyTorch and JAX have theirs) by converting the arguments with `np.asarray` "
        "and back: a CPU-only path, which usmarray's GPU memory refuses as CuPy's and "
        "PyTorch's refuse it. Its tests skip CPU-only cases by library name. Upstream fix: "
        "decide by the array's device (`x.__dlpack_device__()` not the CPU: skip as "
        "cpu-only), not by name."),
    Cause("sklearn-convert-to-numpy-by-name", "scikit-learn", re.compile(
        r"sklearn/utils/_array_api\.py.*\n.*usmarray/_array\.py.*|"
        r"test_label_binarize_unsigned_integer_overflow.*implicit conversion", re.S),
        "scikit-learn's test calls its private `_convert_to_numpy(x, xp)`, which converts "
        "by library name (PyTorch `.cpu()`, CuPy `.get()`, array-api-strict through its "
        "CPU device, dpnp `.asnumpy()`) and otherwise with `np.asarray`, which GPU memory "
        "refuses. Upstream fix: `move_to(x, xp=np, device=\"cpu\")` (DLPack) in the test, "
        "or `np.from_dlpack(x, device=\"cpu\")` as the fallback."),
    Cause("harness-deprecations-ignored", "this harness", re.compile(
        r"test_deprecation\.py::TestDeprecatedFunctions.*DID NOT RAISE DeprecationWarning",
        re.S),
        "array-api-extra's deprecation tests expect `pytest.raises(DeprecationWarning)`, "
        "which needs warnings turned into errors; the harness runs every client with "
        "`-W ignore::DeprecationWarning` (the clients' own deprecations would drown the "
        "report), so these two fail for array-api-strict as well."),
    Cause("xpx-lazy-apply-host", "array-api-extra", re.compile(
        r"array_api_extra/_lazy\.py.*usmarray/_array\.py|"
        r"test_lazy_xp_function_(cython_ufuncs|classes).*implicit conversion", re.S),
        "array-api-extra's `lazy_apply(..., as_numpy=True)` and its lazy-function tests "
        "convert with `np.asarray`, a CPU-only path that usmarray's GPU memory refuses (as "
        "CuPy's does: array-api-extra runs these tests for CuPy only where it names it). "
        "Upstream fix: `np.from_dlpack(x, device=\"cpu\")` and back, or skip by the "
        "array's device."),
    Cause("scipy-marray-name", "SciPy", re.compile(
        r"no attribute '(data|mask|count)'|RecursionError|unexpected keyword argument 'mask'"),
        "SciPy's `is_marray(xp)` is `\"marray\" in xp.__name__`, true for \"usmarray\": "
        "SciPy then takes MArray paths (`.data`, `.mask`, `xp.count`, `asarray(mask=)`)."),
    Cause("sklearn-strict-name", "scikit-learn", re.compile(
        r"test_randomized_range_finder_array_api_compliance|"
        r"check_array_api_input.*index array\(\[.*of type (numpy\.)?ndarray is not allowed",
        re.S),
        "scikit-learn special-cases array-api-strict by name where usmarray behaves the "
        "same. `check_array_api_input` also fits with dispatch off (inputs converted by "
        "`np.asarray`) for every namespace but array-api-strict (`numpy_asarray_works = "
        "xp_X.__name__ != \"array_api_strict\"`); on that path `*SearchCV` indexes the "
        "usmarray input with NumPy index arrays, which the standard (and usmarray, as "
        "array-api-strict) refuses. `test_randomized_range_finder_array_api_compliance` "
        "skips integer-by-float `matmul` for array-api-strict and torch only; the standard "
        "has no mixed-kind promotion. Upstream fix: decide by behaviour (try the NumPy "
        "index / the mixed matmul), or convert the indices with `xp.asarray`."),
    Cause("scipy-strict-name", "SciPy", re.compile(
        r"test_logsumexp\.py::TestLogSumExp::test_dtypes_ab|test_softmax_int_array|"
        r"test_log_softmax_int_array|test_correlation\.py::Test(Theil|Siegel)slopes::"
        r"test_against_mstats"),
        "SciPy special-cases array-api-strict by name where usmarray behaves the same: "
        "`test_dtypes_ab` expects `result_type(int, float)` to work for every library "
        "but array-api-strict; the softmax integer tests are marked xfail for "
        "array-api-strict only (`exp` of an integer array). The standard defines no "
        "mixed-kind promotion and no `exp` of integers, and usmarray refuses both, as "
        "array-api-strict does. `Theilslopes`/`Siegelslopes::test_against_mstats` promote "
        "an integer `y` to the float dtype of `x` for array-api-strict only. Upstream fix: "
        "decide by behaviour (e.g. `try: xp.result_type(...)` / `xp.isdtype`), not by "
        "name."),
    Cause("harness-keyword-on-device", "the harness (fixed)", re.compile(
        r"TestQMCQuad::.*implicit conversion to a NumPy array", re.S),
        "`TestQMCQuad` hands `xp_assert_close` an `atol` that is a 0-D device array "
        "(`stdtrit(...) * res.standard_error`); the harness's host copy of SciPy's "
        "assertions (`--upstream-fixes`) copied positional arguments only, and NumPy's "
        "testing refused the device `atol`. The harness now copies keyword arguments too."),
    Cause("linspace-float32-bounds", "usmarray (fixed)", re.compile(
        r"Test(Cumfreq|Relfreq)::test_against_reference.*float32"),
        "`scipy.stats.cumfreq`/`relfreq` build bin edges with `xp.linspace` of float32 "
        "NumPy scalars and compare with `np.histogram`'s, which NumPy computes in float32; "
        "usmarray computed in float64 and rounded, so an edge moved by one ulp and a "
        "point changed bins. `linspace` now computes in NumPy's dtype for its bounds and "
        "gives NumPy's values bit for bit on every backend."),
    Cause("scipy-devices-list", "SciPy", re.compile(
        r'can only concatenate tuple \(not "list"\) to tuple'),
        "SciPy's `devices` fixture writes `xp.__array_namespace_info__().devices() + "
        "[None]`; the 2025.12 standard returns a tuple there (usmarray follows it, as "
        "array-api-strict does at 2025.12; SciPy pins array-api-strict to 2024.12, where "
        "it returns a list). Upstream fix: `[*info.devices(), None]` "
        "(clients/upstream/scipy-devices-tuple.patch)."),
    Cause("scipy-sampling-tolerance", "SciPy", re.compile(r"test_vq\.py::TestKMeans::test_krandinit"),
          "`test_krandinit` compares the covariance of 10^6 Gaussian samples drawn through "
          "an SVD of the data with the data's covariance at atol 1.1e-2; oneMKL's SVD "
          "(SYCL device) returns singular vectors with other signs than LAPACK's, an "
          "equally valid factorization that gives another realization, whose sampling "
          "error (0.0129 in one of 400 entries) is just over. Passes on the NumPy backend."),
    Cause("scipy-mixed-kinds", "SciPy", re.compile(
        r"test_entropy\.py::TestDifferentialEntropy::test_dtypes_gh21192.*multiply: the "
        r"array API standard defines no promotion", re.S),
        "SciPy's `_correa_entropy` multiplies a float array by an integer array "
        "(`difference*dj`); the standard defines no mixed-kind promotion. array-api-strict "
        "never gets there (the test is skipped for it). Upstream fix: "
        "`dj = xp.astype(dj, X.dtype)`."),
    Cause("sycl-math-ulp", "test expectation", re.compile(
        r"test_circmean_accuracy_tiny_input|TestBootstrap::test_bootstrap_batch|"
        r"test_ba_output|test_hilbert_axis_3d|test_as_euler_symmetric_axes|"
        r"test_align_vectors_no_noise|test_align_vectors_antiparallel"),
        "Exact floating-point expectations the SYCL device meets to within its documented "
        "accuracy but not bit for bit: `test_circmean_accuracy_tiny_input` asserts "
        "`cos(x) == 1.0` for x in [1e-9, 6e-9] (the SYCL CPU device's `cos` returns "
        "1 - 2**-53 for 18 of them; NumPy rounds correctly); `test_bootstrap_batch` "
        "compares batched and unbatched results with `xp_assert_equal` (a reduction's "
        "order depends on the shape; last-bit differences); `TestCheby2`/`TestEllip` "
        "`test_ba_output` expect exact zeros in filter coefficients built from oneMKL "
        "results (residues of 1e-11 relative to coefficients of order 1e4 remain), "
        "`test_hilbert_axis_3d` bit-identical FFT results along different axes. "
        "scipy.spatial: `test_as_euler_symmetric_axes` asks rtol 1.1e-13 of Euler angles "
        "got back from quaternions; the SYCL CPU device's `sin`, `cos` and `atan2` are "
        "within its documented accuracy but differ from NumPy's in the last bits (`sin` "
        "and `cos` in 60% of these 3000 inputs, by up to 3 ulp; `atan2` in 10%, by up to "
        "2), and `half_sum - half_diff` makes 4.4e-16 a relative 1.3e-13 for one "
        "angle of 0.0034; `test_align_vectors_no_noise` asks `rssd < 1e-7` of "
        "`sqrt(sum(|a|^2 + |b|^2) - 2 sum(s))`, a cancellation of numbers near 30 whose "
        "rounding alone is sqrt(30 eps) ~ 8e-8 (oneMKL's singular values differ from "
        "LAPACK's in the last bits: 1.03e-7); `test_align_vectors_antiparallel` compares "
        "rotations from the SVD of a matrix of condition 1e10 at atol 1e-12 (oneMKL's SVD "
        "is backward stable, reconstruction error 1e-15, and its singular vectors agree "
        "with LAPACK's to 3e-8, inside the bound cond * eps = 2e-6; SciPy relaxes this "
        "test to 1e-7 for devices of type 'cuda' only). No float32 anywhere: every one "
        "of these computes in float64."),
    Cause("scipy-tanhsinh-not-standard", "SciPy", re.compile(
        r"test_tanhsinh\.py::.*(dtype=<class 'bool'>|has no attribute '(sum|reshape)'|"
        r"defines no promotion)", re.S),
        "SciPy skips `tanhsinh` and `nsum` for array-api-strict ('No fancy indexing') and "
        "runs them for usmarray; they use what the standard does not have: Python's `bool` "
        "as a dtype (`xp.zeros(shape, dtype=bool)`), NumPy's array methods (`.sum`, "
        "`.reshape`, in `nsum` and its tests) and integer-by-float products (`nsum`'s step "
        "counts). usmarray refuses these as array-api-strict does. Upstream fix: a port of "
        "`_tanhsinh.py` to the standard (`xp.bool`, `xp.reshape`, `xp.count_nonzero`, "
        "`xp.astype` before each mixed product): with only the first three (tried as a "
        "patch) the same tests fail further on, on mixed kinds (int-by-float products, "
        "`int32 += int64`, `bool & int32`)."),
    Cause("skips-strict", "SciPy, array-api-extra", re.compile(
        r"of type list is not allowed by the array API|with bool \(mixed kinds|"
        r"has no attribute 'float16'|full_like: fill_value must be a Python scalar, got "
        r"usm_ndarray|(multiply|stack): the array API standard defines no promotion|"
        r"array-agnostic fallback should not be used|"
        r"test_simpson_2d_integer_no_x.*a Python float cannot be combined|"
        r"test_boolean_input_gh24847.*min is defined for real numeric dtypes only", re.S),
        "The client skips these tests for array-api-strict, which refuses what they use, "
        "and runs them for every other library: a Python list as an index "
        "(`TestSOSFilt::test_initial_conditions_2`), `result_type` of a float and a bool "
        "(`lfiltic` with a bad `zi`), a float16 dtype, `full_like` with a 0-D array "
        "fill value (`continued_fraction`), integer-by-float `multiply`/`stack` "
        "(`differential_entropy(method='correa')`, `TestPower`), `simpson` of an integer "
        "array with a float step (\"no int->float promotion\"), `min`/`max` of a bool array "
        "(`describe`, gh-24847; the standard defines them for real numeric dtypes); "
        "array-api-extra's "
        "`TestNUnique::test_delegates` expects every library but array-api-strict to have "
        "a native path. The standard has none of these and usmarray refuses them as "
        "array-api-strict does. Upstream fix: skip by behaviour, not by name."),
    Cause("stricter-than-strict", "usmarray (fixed)", re.compile(
        r"moveaxis: axis must be an int or a tuple of ints, got list|"
        r"linspace: dtype must be floating-point|linspace: start must be an int, float or "
        r"complex, got usm_ndarray|arange: dtype must be a real numeric dtype, got complex|"
        r"axis must be an int, got u?int\d+|n must be an int, got u?int\d+"),
        "usmarray was stricter than array-api-strict here, which accepts (as NumPy does) "
        "a NumPy integer as `axis` (SciPy's `cumulative_simpson` passes one to "
        "`cumulative_sum` and `diff`), `linspace` with an integer dtype (scipy.signal), "
        "`arange` with a complex dtype, lists of axes and 0-D arrays as numbers. All are "
        "accepted now, by one rule for every parameter (`usmarray/_params.py`, checked "
        "against array-api-strict by `tests/test_strictness.py`; docs/migration.md lists "
        "where usmarray stays stricter, and why). Counts here are from runs before."),
    Cause("scipy-device-propagation", "SciPy", re.compile(
        r"test_device_dtype\.py::.*(ExecutionPlacementError|assert Device\()", re.S),
          "With the `devices` fixture fixed (clients/upstream/scipy-devices-tuple.patch) "
          "SciPy's device tests run on every device usmarray has, not only the default "
          "one, and scipy.stats returns results on the default device where the input is "
          "on another (`entropy`) or mixes the two (`quantile(method='harrell-davis')`, "
          "the hypothesis tests and `combine_pvalues`): scipy.special's functions run on "
          "the host through `np.asarray` and come back with `xp.asarray` on the default "
          "device. SciPy skips these tests for array-api-strict by name ('special "
          "functions don't work with device1'). Upstream: scipy/scipy#22680, with the "
          "device-propagation machinery of scipy/scipy#25677 (after SciPy 1.17)."),
    Cause("scipy-sort-key-tie", "SciPy", re.compile(r"TestSos2Zpk::test_basic"),
          "SciPy's tests sort complex roots with the key `abs(z) + real(z) + imag(z)**3`, "
          "which is 0 for every real z <= 0: the roots 0 and -1 tie, and their order is "
          "the order the eigensolver found them in (the standard leaves it unspecified; "
          "the SYCL device's QR algorithm deflates in another order than LAPACK). "
          "Upstream fix: a key without ties, e.g. `argsort` by `imag` then a stable "
          "`argsort` by `real`."),
    Cause("real-eig-conjugates", "usmarray (fixed)", re.compile(
        r"TestIIRComb::test_iir_symmetry"),
          "The SYCL device's eigensolver works in complex arithmetic, so the eigenvalues "
          "of a real matrix were conjugate to rounding only, where LAPACK's real `geev` "
          "gives exact pairs (the test compares the sorted poles with their conjugates "
          "bit for bit). Fixed: each pair is made exact, and its eigenvectors conjugates "
          "(`tests/test_linalg_eig_pairs.py`)."),
    Cause("flags-writeable", "usmarray", re.compile(r"Flags' object has no attribute 'writeable'"),
          "`x.flags` is the kernel provider's flags object (dpnp's `Flags`), which spells "
          "`writable`; SciPy reads NumPy's `x.flags.writeable`. Not in the standard; a "
          "flags object with NumPy's names would fix it."),
    Cause("message-wording", "SciPy", re.compile(r"Regex pattern did not match"),
          "SciPy matches the error message of a refused input against the words of the "
          "libraries it knows (NumPy, array-api-strict, ...); usmarray raises the same "
          "exception type with its own words."),
    Cause("xpx-from-dlpack", "array-api-extra", re.compile(r"Unsupported device in DLTensor"),
          "array-api-extra's testing helper `_as_numpy_array` converts with "
          "`np.from_dlpack(x)` and falls back to `np.asarray` only on TypeError/BufferError; "
          "a usmarray array on a SYCL device exports a kDLOneAPI tensor (as DLPack says it "
          "must when no `dl_device` is asked for) and NumPy refuses that device with "
          "RuntimeError. Upstream fix: `np.from_dlpack(x, device=\"cpu\")` where the "
          "array's DLPack device is not the CPU (usmarray then exports a host tensor): "
          "clients/upstream/array-api-extra-host-copy.patch."),
    Cause("xpx-strict-name", "array-api-extra", re.compile(
        r"test_at\.py::test_incompatible_dtype|test_lazy_xp_function_cython_ufuncs"),
        "array-api-extra expects array-api-strict's behaviour by name only: "
        "`test_incompatible_dtype` requires `int_array[:] = 1.1` (and `min`/`max` with a "
        "float) to raise for array-api-strict and to succeed for every other library; "
        "`test_lazy_xp_function_cython_ufuncs` expects a SciPy ufunc to convert an "
        "array-api-strict array to NumPy, and any other library to dispatch through "
        "`__array_ufunc__`. usmarray behaves as array-api-strict in both (the standard's "
        "Python-scalar rule; no `__array_ufunc__`). Upstream fix: decide by behaviour "
        "(`pytest.raises` accepted for any library; `hasattr(type(x), '__array_ufunc__')`)."),
    Cause("numpy-dtype-of-DType", "usmarray (fixed)", re.compile(
        r"Cannot interpret 'usmarray\.\w+' as a data type"),
        "On the same dispatch-off path (see sklearn-strict-name), scikit-learn converts "
        "usmarray inputs with "
        "`np.asarray` but keeps `X.dtype` (a usmarray DType, which has NumPy's `.kind`) "
        "and casts a NumPy value to it: `np.float64(v).astype(usmarray.float64)`. "
        "NumPy interprets the DType through its `__numpy_dtype__`, so "
        "`np.dtype(usmarray.float64)` works and these tests pass."),
]


def classify(rec: dict) -> str:
    text = "\n".join([rec["nodeid"], rec.get("message", ""), *rec.get("frames", [])])
    for c in CAUSES:
        if c.pattern.search(text):
            return c.key
    first = rec.get("message", "").strip().splitlines()[0] if rec.get("message") else "?"
    first = re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?", "N", first)
    return "other: " + first[:140]


def load(paths: Iterable[Path]) -> list[dict]:
    out = []
    for p in paths:
        if not p.exists():
            continue
        with open(p, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    return out


def counts(records: list[dict]) -> Counter:
    return Counter(r["outcome"] for r in records)


def usm_only_failures(usm: list[dict], strict: list[dict]) -> tuple[list[dict], list[dict]]:
    """(usmarray failures whose twin did not fail: it passed, was skipped or does not
    exist; usmarray failures whose twin failed or xfailed as well)."""
    twin = twin_outcomes(strict)
    only: list[dict] = []
    also: list[dict] = []
    for r in usm:
        if r["outcome"] not in FAILED:
            continue
        t = twin_outcome(twin, r["nodeid"])
        (also if t in FAILED | {"xfailed"} else only).append(r)
    return only, also


#: what the anchors did with a usmarray failure's twins, in the report's order
ANCHOR_CLASSES = {
    "anchor-passes": "a twin passes on an anchor (CuPy or PyTorch): to be fixed or explained",
    "anchors-fail": "every anchor twin that ran fails (or xfails) too",
    "anchors-skip": "the client skips every anchor twin",
    "no-twin": "no anchor has a twin of the test",
}


def against_anchors(usm: list[dict], anchors: Mapping[str, list[dict]]
                    ) -> dict[str, list[tuple[dict, dict[str, str]]]]:
    """Each usmarray failure in ``usm`` by ``ANCHOR_CLASSES``, with the outcomes of its
    twins (anchor name -> outcome) on ``anchors`` (anchor name -> records)."""
    tables = {name: twin_outcomes(recs) for name, recs in anchors.items()}
    out: dict[str, list[tuple[dict, dict[str, str]]]] = {c: [] for c in ANCHOR_CLASSES}
    for r in usm:
        if r["outcome"] not in FAILED:
            continue
        twins = {name: t for name, table in tables.items()
                 if (t := twin_outcome(table, r["nodeid"])) is not None}
        seen = set(twins.values())
        if seen & PASSED:
            cls = "anchor-passes"
        elif seen & (FAILED | {"xfailed"}):
            cls = "anchors-fail"
        elif seen:
            cls = "anchors-skip"
        else:
            cls = "no-twin"
        out[cls].append((r, twins))
    return out


def module_of(rec: dict) -> str:
    """The client module a record's test belongs to: its test module's package above
    ``tests`` (``scipy.special.tests.test_x`` -> ``scipy.special``); from the test id's
    path for records without the module."""
    mod = rec.get("module") or rec["nodeid"].partition("::")[0].removesuffix(".py")
    parts = mod.replace("/", ".").split(".")
    if "tests" in parts:
        parts = parts[:parts.index("tests")]
    return ".".join(parts) or "?"


def module_table(suites: Mapping[str, Mapping[str, list[dict]]]) -> str:
    """suites: suite label -> column label -> records; one row per (suite, module), each
    cell "passed / failed" ("-" where the column ran no test of the module)."""
    columns: list[str] = []
    for cols in suites.values():
        columns += [c for c in cols if c not in columns]
    lines = ["| suite | module | " + " | ".join(columns) + " |",
             "| --- | --- | " + " | ".join("---:" for _ in columns) + " |"]
    for label, cols in suites.items():
        per: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
        for col, recs in cols.items():
            for r in recs:
                per[module_of(r)][col][r["outcome"]] += 1
        for mod in sorted(per):
            cells = []
            for col in columns:
                c = per[mod].get(col)
                cells.append("-" if not c else
                             f"{sum(c[o] for o in PASSED)} / {sum(c[o] for o in FAILED)}")
            lines.append(f"| {label} | `{mod}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def anchors_section(classes: Mapping[str, Mapping[str, list[tuple[dict, dict[str, str]]]]]
                    ) -> str:
    """classes: label -> ``against_anchors``'s result; the counts per class, then the
    failures whose twin passes on an anchor, grouped by cause."""
    lines = ["| suite / device | " + " | ".join(f"`{c}`" for c in ANCHOR_CLASSES) + " |",
             "| --- | " + " | ".join("---:" for _ in ANCHOR_CLASSES) + " |"]
    passes: dict[str, list[dict]] = {}
    for label, by in classes.items():
        lines.append(f"| {label} | " + " | ".join(str(len(by[c])) for c in ANCHOR_CLASSES)
                     + " |")
        passes[label] = [dict(r, anchors=twins) for r, twins in by["anchor-passes"]]
    legend = "\n".join(f"- `{c}`: {text}" for c, text in ANCHOR_CLASSES.items())
    return ("\n".join(lines) + "\n\n" + legend
            + "\n\nFailures whose twin passes on an anchor, by cause:\n\n"
            + causes_section(passes, none="None."))


def markdown_table(rows: list[tuple[str, str, str, Counter, str]]) -> str:
    """rows: (suite, namespace, device, counts, seconds)."""
    lines = [
        "| suite | namespace | device | passed | failed | skipped | xfailed | time |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for suite, ns, dev, c, secs in rows:
        failed = c["failed"] + c["error"]
        lines.append(
            f"| {suite} | {ns} | {dev} | {c['passed'] + c['xpassed']} | {failed} | "
            f"{c['skipped']} | {c['xfailed']} | {secs} |"
        )
    return "\n".join(lines)


def causes_section(failures: dict[str, list[dict]],
                   none: str = "No usmarray-only failures.") -> str:
    """failures: label -> usmarray failure records; grouped by cause (``none`` where
    there are no failures)."""
    by_cause: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    for label, recs in failures.items():
        for r in recs:
            by_cause[classify(r)].append((label, r))
    if not by_cause:
        return none + "\n"
    known = {c.key: c for c in CAUSES}
    out = []
    for key, items in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        c = known.get(key)
        head = f"**{key}** ({c.who})" if c else f"**{key}**"
        per = Counter(label for label, _ in items)
        out.append(f"- {head}: {len(items)} ({', '.join(f'{k} {v}' for k, v in per.items())})")
        if c:
            out.append(f"  {c.text}")
        for _, r in items[:3]:
            anchors = ", ".join(f"{k} {v}" for k, v in sorted(r.get("anchors", {}).items()))
            out.append(f"  - `{r['nodeid']}` at `{r.get('where', '')}`"
                       + (f" ({anchors})" if anchors else ""))
    return "\n".join(out) + "\n"
