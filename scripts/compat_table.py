#!/usr/bin/env python
"""Try scikit-learn and SciPy on usmarray arrays and write ``docs/compatibility.md``.

    python scripts/compat_table.py                 # writes docs/compatibility.md
    python scripts/compat_table.py --out - --only scipy

Every case runs twice: on NumPy arrays (the reference) and on usmarray arrays on the
default device.  A case passes when the values agree within float tolerance and every
array in the result is a usmarray array on the input's device.  A case that fails is
run a third time on array-api-strict: if that fails as well the cause lies in the
library (it steps outside the standard), if it passes the cause is usmarray-specific.
Known causes get a short explanation (``KNOWN_CAUSES``).

``SCIPY_ARRAY_API=1`` is set here, before SciPy or scikit-learn is imported.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import numbers  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
try:
    import usmarray as xp
except ImportError:  # run from a checkout without installing it
    sys.path.insert(0, str(ROOT))
    import usmarray as xp

RTOL, ATOL = 1e-6, 1e-9


# ---- cases -------------------------------------------------------------------------------------
@dataclass
class Case:
    """``run(to)`` computes the case; ``to`` turns a NumPy array into the library's array."""

    section: str
    name: str
    run: Callable[[Callable[[np.ndarray], Any]], Any] | None  # None: not tried
    params: str = ""
    sign_free: bool = False  # columns of SVD-based results may differ in sign


@dataclass
class Outcome:
    status: str  # "pass" | "fail" | "not run"
    why: str = ""
    cause: str = ""  # a KNOWN_CAUSES key, or "" for an unexplained failure
    strict: str = ""  # "pass" / "fail: ..." on array-api-strict, when the case failed
    extra: dict[str, str] = field(default_factory=dict)


#: (key, who, pattern over "ExcType: message\ntraceback", explanation)
KNOWN_CAUSES: list[tuple[str, str, str, str]] = [
    ("scipy-marray-name", "SciPy",
     r"no attribute '(data|mask|count)'|RecursionError",
     "SciPy decides whether a namespace is MArray with `\"marray\" in xp.__name__` "
     "(`scipy._lib._array_api.is_marray`); `\"usmarray\"` contains `\"marray\"`, so SciPy "
     "reads `.data` / `.mask` attributes that do not exist, or (scipy.special) recurses "
     "into its MArray unwrapping forever. Nothing usmarray does can change its module "
     "name; the column *without the name test* reruns the case with that test made "
     "exact."),
    ("sklearn-int-div", "scikit-learn",
     r"divide is defined for floating-point dtypes only",
     "scikit-learn divides two integer arrays with `/`. The standard leaves true division "
     "of integer arrays unspecified and usmarray refuses it with TypeError; scikit-learn "
     "casts to float first only when the namespace is array-api-strict."),
    ("sklearn-diff-positional", "scikit-learn",
     r"diff\(\) takes 1 positional argument",
     "scikit-learn calls `xp.diff(x, 2)`; the standard's `n` is keyword-only "
     "(`diff(x, /, *, axis=-1, n=1, ...)`). Fails the same way on array-api-strict."),
    ("sklearn-numpy-dtype", "scikit-learn",
     r"is not a dtype of the array API standard|'dtype' must be a dtype",
     "scikit-learn passes a NumPy dtype (`np.int64`) to `xp.isdtype`; only the namespace's "
     "own dtype objects are valid there. Fails the same way on array-api-strict."),
    ("scipy-list-axes", "SciPy",
     r"permute_dims: axes must be a tuple",
     "SciPy calls `xp.permute_dims(x, axes)` with a list; the standard's signature takes "
     "a tuple and usmarray refuses anything else (array-api-strict accepts a list)."),
    ("scipy-array-as-scalar", "SciPy",
     r"arange: (start|stop|step) must be an int or float",
     "SciPy passes a 0-D array where the standard's signature takes a Python `int` or "
     "`float` (`xp.arange(1, n + 1, dtype=n.dtype)` with `n` a 0-D array); usmarray "
     "refuses it, array-api-strict and NumPy accept it."),
    ("sklearn-unsupported-param", "scikit-learn",
     r"is not supported for Array API inputs",
     "scikit-learn refuses this parameter value under array API dispatch, for any "
     "non-NumPy namespace (documented)."),
    ("numpy-method", "library",
     r"'usm_ndarray' object has no attribute '(sum|min|max|argmin|argmax|flat|mean|astype|"
     r"ravel|copy|reshape|item|tolist)'",
     "The library calls a NumPy-only array method (`x.sum()`, `x.min()`, `x.flat`, ...); "
     "the standard's array object has none of these (the functions are `xp.sum(x)` etc.). "
     "Fails the same way on array-api-strict."),
    ("numpy-format", "library",
     r"unsupported format string passed to usm_ndarray.__format__",
     "The library formats a 0-D array with a format spec (`f\"{x:.2f}\"`); the standard "
     "does not give arrays `__format__`, so Python's default refuses the spec. Fails the "
     "same way on array-api-strict."),
    ("numpy-dtype-attr", "library",
     r"'DType' object has no attribute 'kind'|has no attribute 'kind'",
     "The library reads NumPy-only dtype attributes (`dtype.kind`) of a non-NumPy array."),
    ("numpy-index", "library",
     r"of type ndarray is not allowed by the array API standard",
     "The library indexes a usmarray array with a NumPy array (the standard allows "
     "integers, slices, `...`, `None` and arrays of the same namespace). Fails the same "
     "way on array-api-strict."),
    ("numpy-fallback", "library",
     r"is ndarray, not a usmarray array",
     "The function (or this parameter of it) is not array-API enabled: it converts the "
     "input to NumPy and returns NumPy arrays. On a CPU device the conversion works "
     "through `__array__`; on a GPU with USM-device memory it is refused."),
]


def classify(text: str) -> str:
    for key, _who, pattern, _expl in KNOWN_CAUSES:
        if re.search(pattern, text):
            return key
    return ""


# ---- comparing results -----------------------------------------------------------------------
class Mismatch(Exception):
    pass


@dataclass
class Target:
    """The library a case runs on: how to make its arrays, recognise them, read them back."""

    label: str
    array_type: type
    device: Any
    asarray: Callable[[np.ndarray], Any]
    to_host: Callable[[Any], np.ndarray]


def usmarray_target(dev: Any) -> Target:
    return Target("a usmarray array", xp.usm_ndarray, dev,
                  lambda a: xp.asarray(np.array(a, copy=True), device=dev), xp.asnumpy)


def strict_target() -> Target | None:
    try:
        import array_api_strict as strict
    except ImportError:
        return None
    arr = strict.asarray(0.0)
    return Target("an array-api-strict array", type(arr), arr.device,
                  lambda a: strict.asarray(np.array(a, copy=True)),
                  lambda a: np.asarray(a.to_device(strict.Device("CPU_DEVICE"))))


def compare(ref: Any, got: Any, tgt: Target, path: str = "result",
            sign_free: bool = False) -> None:
    """Raise Mismatch unless ``got`` (a run on ``tgt``) matches ``ref`` (the NumPy run)."""
    if isinstance(ref, np.ndarray) and ref.ndim == 0 and not isinstance(got, tgt.array_type):
        ref = ref[()]
    if isinstance(ref, np.ndarray):
        if not isinstance(got, tgt.array_type):
            raise Mismatch(f"{path} is {type(got).__name__}, not {tgt.label}")
        if got.device != tgt.device:
            raise Mismatch(f"{path} is on {got.device}, the input on {tgt.device}")
        if tuple(got.shape) != ref.shape:
            raise Mismatch(f"{path} has shape {got.shape}, NumPy gives {ref.shape}")
        g = tgt.to_host(got)
        if ref.dtype.kind not in "biufc" or g.dtype.kind not in "biufc":
            if not np.array_equal(g, ref):
                raise Mismatch(f"{path} differs from NumPy's")
            return
        if sign_free and g.ndim == 2 and ref.dtype.kind == "f":
            g = g * np.where(np.sum(g * ref, axis=0) < 0, -1.0, 1.0)
        if not np.allclose(g, ref, rtol=RTOL, atol=ATOL, equal_nan=True):
            err = np.nanmax(np.abs(g.astype(np.complex128) - ref.astype(np.complex128)))
            raise Mismatch(f"{path} differs from NumPy's (max abs difference {err:.3g})")
        return
    if isinstance(ref, dict):
        if set(ref) != set(got):
            raise Mismatch(f"{path} has keys {sorted(got)}, NumPy gives {sorted(ref)}")
        for k in ref:
            compare(ref[k], got[k], tgt, f"{path}.{k}", sign_free)
        return
    if hasattr(ref, "_asdict"):  # named tuples (SciPy results): their public numeric fields
        compare(_numeric(ref._asdict()), _numeric(got._asdict()), tgt, path, sign_free)
        return
    if isinstance(ref, (tuple, list)):
        if len(ref) != len(got):
            raise Mismatch(f"{path} has {len(got)} items, NumPy gives {len(ref)}")
        for i, (a, b) in enumerate(zip(ref, got, strict=True)):
            compare(a, b, tgt, f"{path}[{i}]", sign_free)
        return
    if isinstance(ref, (bool, np.bool_)):
        if bool(got) != bool(ref):
            raise Mismatch(f"{path} is {got}, NumPy gives {ref}")
        return
    if isinstance(ref, (numbers.Number, np.generic)):
        if isinstance(got, tgt.array_type):
            if got.ndim != 0:
                raise Mismatch(f"{path} has shape {got.shape}, NumPy gives a scalar")
            if got.device != tgt.device:
                raise Mismatch(f"{path} is on {got.device}, the input on {tgt.device}")
            got = tgt.to_host(got)[()]
        if not np.allclose(complex(got), complex(ref), rtol=RTOL, atol=ATOL, equal_nan=True):
            raise Mismatch(f"{path} is {got}, NumPy gives {ref}")
        return
    fields = _result_fields(ref)
    if fields is not None:
        compare(fields, _result_fields(got) or {}, tgt, path, sign_free)
        return
    if ref != got:
        raise Mismatch(f"{path} is {got!r}, NumPy gives {ref!r}")


def _numeric(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if not k.startswith("_")
            and (isinstance(v, (numbers.Number, np.generic)) or hasattr(v, "__array_namespace__"))}


def _result_fields(r: Any) -> dict[str, Any] | None:
    """The public array/number fields of a result object (SciPy's result classes)."""
    d = getattr(r, "__dict__", None)
    return None if d is None else _numeric(d)


# ---- running a case ----------------------------------------------------------------------------
def _where(tb: traceback.StackSummary) -> str:
    """The innermost frame of the calling library (not usmarray, not this script)."""
    for fr in reversed(tb):
        fn = fr.filename.replace("\\", "/")
        if "site-packages/" in fn and "/usmarray/" not in fn:
            return f"{fn.split('site-packages/', 1)[1]}:{fr.lineno}"
    return ""


def _error_text(exc: BaseException) -> tuple[str, str]:
    """(one-line description, text to match KNOWN_CAUSES against)."""
    tb = traceback.extract_tb(exc.__traceback__)
    msg = " ".join(str(exc).split())
    if len(msg) > 140:
        msg = msg[:137] + "..."
    where = _where(tb)
    line = f"{type(exc).__name__}: {msg}" + (f" (at {where})" if where else "")
    full = f"{type(exc).__name__}: {exc}\n" + "".join(traceback.format_tb(exc.__traceback__))
    return line, full


def _quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(400)  # SciPy's MArray recursion (see KNOWN_CAUSES) fails fast
        try:
            return fn()
        finally:
            sys.setrecursionlimit(old)


def _without_dispatch(fn: Callable[[], Any]) -> Any:
    if "sklearn" not in sys.modules:
        raise RuntimeError("no scikit-learn")
    import sklearn

    with sklearn.config_context(array_api_dispatch=False):
        return fn()


def to_numpy(a: np.ndarray) -> np.ndarray:
    return np.array(a, copy=True)


def attempt(case: Case, ref: Any, tgt: Target) -> tuple[str, str]:
    """("pass", "") or ("fail", one-line reason) and the text to match causes against."""
    try:
        got = _quiet(lambda: case.run(tgt.asarray))
        compare(ref, got, tgt, sign_free=case.sign_free)
        return "pass", ""
    except Mismatch as exc:
        return "fail: " + str(exc), str(exc)
    except Exception as exc:
        line, full = _error_text(exc)
        return "fail: " + line, full


def run_case(case: Case, usm: Target, strict: Target | None) -> Outcome:
    if case.run is None:
        return Outcome("not run", "no argument recipe for this function in the script")
    try:
        ref = _quiet(lambda: case.run(to_numpy))
    except Exception as exc:
        try:  # scikit-learn may refuse a parameter under dispatch even for NumPy input
            ref = _quiet(lambda: _without_dispatch(lambda: case.run(to_numpy)))
        except Exception:  # the case itself is wrong for this library version
            line, _ = _error_text(exc)
            return Outcome("not run", f"the NumPy reference fails: {line}")
    result, full = attempt(case, ref, usm)
    if result == "pass":
        return Outcome("pass")
    out = Outcome("fail", result[len("fail: "):], classify(full))
    if strict is not None:
        out.strict = attempt(case, ref, strict)[0]
    return out


# ---- scikit-learn ------------------------------------------------------------------------------
def sklearn_cases() -> list[Case]:
    import sklearn
    from sklearn import metrics
    from sklearn.base import is_classifier, is_regressor
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import (
        LogisticRegression,
        PoissonRegressor,
        Ridge,
        RidgeClassifier,
        RidgeClassifierCV,
        RidgeCV,
    )
    from sklearn.metrics import cluster, pairwise
    from sklearn.mixture import GaussianMixture
    from sklearn.model_selection import GridSearchCV, cross_val_predict, train_test_split
    from sklearn.pipeline import FeatureUnion, make_pipeline
    from sklearn.preprocessing import (
        KernelCenterer,
        LabelBinarizer,
        LabelEncoder,
        MaxAbsScaler,
        Normalizer,
        StandardScaler,
        label_binarize,
    )
    from sklearn.utils import all_estimators
    from sklearn.utils._tags import get_tags

    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 5))
    y_cls = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 0.8)
    y_reg = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(60)
    y_pos = np.exp(y_reg / 4)
    cases: list[Case] = []

    def estimator(name: str, factory: Callable[[], Any], target: np.ndarray | None,
                  params: str = "", X_: np.ndarray = X, sign_free: bool = False) -> Case:
        def run(to: Callable) -> Any:
            est = factory()
            Xt = to(X_)
            if target is not None:
                est.fit(Xt, to(target))
            else:
                est.fit(Xt)
            out: dict[str, Any] = {
                k: v for k, v in vars(est).items()
                if k.endswith("_") and not k.startswith("_") and hasattr(v, "__array_namespace__")
            }
            for m in ("predict", "predict_proba", "decision_function", "transform",
                      "score_samples"):
                if hasattr(est, m):  # hasattr: some methods exist only for some parameters
                    try:
                        out[m] = getattr(est, m)(Xt)
                    except NotImplementedError:  # e.g. LDA(solver="lsqr").transform
                        continue
            return out

        return Case("estimator", name, run, params, sign_free)

    explicit = [
        estimator("LinearDiscriminantAnalysis", LinearDiscriminantAnalysis, y_cls,
                  "solver='svd'", sign_free=True),
        estimator("LinearDiscriminantAnalysis", lambda: LinearDiscriminantAnalysis(solver="eigen"),
                  y_cls, "solver='eigen'"),
        estimator("LinearDiscriminantAnalysis", lambda: LinearDiscriminantAnalysis(solver="lsqr"),
                  y_cls, "solver='lsqr'"),
        estimator("PCA", lambda: PCA(n_components=3, svd_solver="full"), None, "svd_solver='full'"),
        estimator("PCA", lambda: PCA(n_components=3, svd_solver="covariance_eigh"), None,
                  "svd_solver='covariance_eigh'"),
        estimator("PCA", lambda: PCA(n_components=3, svd_solver="randomized",
                                     power_iteration_normalizer="QR", random_state=0), None,
                  "svd_solver='randomized', power_iteration_normalizer='QR'"),
        estimator("PCA", lambda: PCA(n_components=3), None, "svd_solver='auto'"),
        estimator("PCA", lambda: PCA(n_components=3, svd_solver="randomized", random_state=0),
                  None, "svd_solver='randomized', power_iteration_normalizer='auto'"),
        estimator("PCA", lambda: PCA(n_components=3, svd_solver="arpack", random_state=0),
                  None, "svd_solver='arpack'"),
        estimator("PCA", lambda: PCA(n_components="mle", svd_solver="full"), None,
                  "n_components='mle'"),
        estimator("PCA", lambda: PCA(n_components=0.8, svd_solver="full", whiten=True), None,
                  "n_components=0.8, whiten=True"),
        estimator("Ridge", lambda: Ridge(solver="svd"), y_reg, "solver='svd'"),
        estimator("Ridge", Ridge, y_reg, "solver='auto' (svd chosen)"),
        estimator("Ridge", lambda: Ridge(solver="svd", alpha=np.asarray([0.5, 2.0])),
                  np.stack([y_reg, -y_reg], axis=1), "two targets, per-target alpha"),
        estimator("RidgeClassifier", lambda: RidgeClassifier(solver="svd"), y_cls, "solver='svd'"),
        estimator("RidgeCV", lambda: RidgeCV(alphas=(0.1, 1.0, 10.0)), y_reg,
                  "alphas=(0.1, 1, 10)"),
        estimator("RidgeClassifierCV", lambda: RidgeClassifierCV(alphas=(0.1, 1.0, 10.0)), y_cls,
                  "alphas=(0.1, 1, 10)"),
        estimator("LogisticRegression", lambda: LogisticRegression(max_iter=300), y_cls,
                  "solver='lbfgs'"),
        estimator("PoissonRegressor", PoissonRegressor, y_pos, "solver='lbfgs'"),
        estimator("Nystroem", lambda: Nystroem(n_components=15, random_state=0), None,
                  "kernel='rbf'"),
        estimator("Nystroem", lambda: Nystroem(kernel="polynomial", degree=2, n_components=15,
                                               random_state=0), None, "kernel='polynomial'"),
        estimator("MaxAbsScaler", MaxAbsScaler, None, "defaults"),
        estimator("Normalizer", lambda: Normalizer(norm="l1"), None, "norm='l1'"),
        estimator("Normalizer", lambda: Normalizer(norm="max"), None, "norm='max'"),
        estimator("KernelCenterer", KernelCenterer, None, "a 60x60 linear kernel", X_=X @ X.T),
        estimator("CalibratedClassifierCV",
                  lambda: CalibratedClassifierCV(LogisticRegression(), method="temperature",
                                                 cv=3), y_cls,
                  "LogisticRegression, method='temperature'"),
        estimator("Pipeline", lambda: make_pipeline(StandardScaler(), PCA(2, svd_solver="full")),
                  None, "StandardScaler + PCA"),
        estimator("FeatureUnion", lambda: FeatureUnion([("s", StandardScaler()),
                                                        ("p", PCA(2, svd_solver="full"))]),
                  None, "StandardScaler + PCA"),
        estimator("GridSearchCV", lambda: GridSearchCV(LinearDiscriminantAnalysis(),
                                                       {"tol": [1e-2, 1e-4]}, cv=2), y_cls,
                  "LinearDiscriminantAnalysis", sign_free=True),
    ]
    for cov in ("full", "tied", "diag", "spherical"):
        explicit.append(estimator(
            "GaussianMixture",
            lambda cov=cov: GaussianMixture(n_components=2, covariance_type=cov,
                                            init_params="random", random_state=0),
            None, f"covariance_type='{cov}', init_params='random'"))

    # every estimator whose default parameters declare array API support
    covered = {c.name for c in explicit}
    auto = []
    for name, cls in all_estimators():
        if name in covered:
            continue
        try:
            est = cls()
            supported = get_tags(est).array_api_support
        except Exception:  # needs constructor arguments (meta-estimators): listed above
            continue
        if not supported:
            continue
        if name == "LabelEncoder":
            continue  # takes y only; below
        target = y_cls if is_classifier(est) else y_reg if is_regressor(est) else None
        auto.append(estimator(name, cls, target, "defaults"))
    cases += explicit + auto

    def label_encoder(to: Callable) -> Any:
        le = LabelEncoder().fit(to(np.asarray([3, 1, 2, 3, 7])))
        return {"classes_": le.classes_, "transform": le.transform(to(np.asarray([7, 1]))),
                "inverse_transform": le.inverse_transform(to(np.asarray([0, 3])))}

    def label_binarizer(to: Callable) -> Any:
        lb = LabelBinarizer().fit(to(y_cls))
        return {"classes_": lb.classes_, "transform": lb.transform(to(y_cls[:7]))}

    def std_scaler_weighted(to: Callable) -> Any:
        s = StandardScaler().fit(to(X), sample_weight=to(np.linspace(0.5, 2.0, 60)))
        return {"mean_": s.mean_, "scale_": s.scale_, "transform": s.transform(to(X))}

    cases += [
        Case("estimator", "LabelEncoder", label_encoder, "integer labels"),
        Case("estimator", "LabelBinarizer", label_binarizer, "three classes"),
        Case("estimator", "StandardScaler", std_scaler_weighted, "sample_weight"),
    ]
    cases.sort(key=lambda c: (c.name, c.params))

    # ---- metrics
    n = 40
    yb, pb, sb = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.random(n)
    ym, pm = rng.integers(0, 3, n), rng.integers(0, 3, n)
    sm = rng.random((n, 3))
    sm /= sm.sum(1, keepdims=True)
    yl, pl, sl = rng.integers(0, 2, (n, 3)), rng.integers(0, 2, (n, 3)), rng.random((n, 3))
    yr, pr = rng.random(n) + 0.1, rng.random(n) + 0.1
    yr2, pr2 = rng.random((n, 2)) + 0.1, rng.random((n, 2)) + 0.1
    A, B = rng.random((9, 4)), rng.random((6, 4))

    def metric(fname: str, mod: Any, inputs: tuple, params: str = "", **kw: Any) -> Case:
        fn = getattr(mod, fname)
        return Case("metric", fname, lambda to: fn(*(to(a) for a in inputs), **kw), params)

    averaged = {"f1_score", "fbeta_score", "jaccard_score", "precision_score", "recall_score",
                "precision_recall_fscore_support"}
    for fname in ("accuracy_score", "balanced_accuracy_score", "cohen_kappa_score",
                  "confusion_matrix", "f1_score", "fbeta_score", "hamming_loss", "jaccard_score",
                  "matthews_corrcoef", "multilabel_confusion_matrix", "precision_score",
                  "precision_recall_fscore_support", "recall_score", "zero_one_loss",
                  "classification_report"):
        kw: dict[str, Any] = {"beta": 0.5} if fname == "fbeta_score" else {}
        cases.append(metric(fname, metrics, (yb, pb), "binary labels", **kw))
        if fname in averaged:
            kw = dict(kw, average="macro")
        cases.append(metric(fname, metrics, (ym, pm), "multiclass labels", **kw))
        if fname in averaged | {"accuracy_score", "hamming_loss", "multilabel_confusion_matrix",
                                "zero_one_loss"}:
            cases.append(metric(fname, metrics, (yl, pl), "multilabel", **kw))
    for fname in ("average_precision_score", "brier_score_loss", "d2_brier_score",
                  "d2_log_loss_score", "det_curve", "log_loss", "precision_recall_curve",
                  "roc_auc_score", "roc_curve", "top_k_accuracy_score", "hinge_loss"):
        cases.append(metric(fname, metrics, (yb, sb), "binary scores"))
    for fname in ("brier_score_loss", "d2_log_loss_score", "log_loss", "roc_auc_score",
                  "top_k_accuracy_score"):
        kw = {"multi_class": "ovr"} if fname == "roc_auc_score" else {}
        cases.append(metric(fname, metrics, (ym, sm), "multiclass probabilities", **kw))
    for fname in ("average_precision_score", "label_ranking_average_precision_score",
                  "coverage_error", "label_ranking_loss", "ndcg_score", "dcg_score"):
        cases.append(metric(fname, metrics, (yl, sl), "multilabel scores"))
    single_only = {"max_error", "mean_gamma_deviance", "mean_poisson_deviance",
                   "mean_tweedie_deviance", "d2_tweedie_score"}
    for fname in ("d2_absolute_error_score", "d2_pinball_score", "d2_tweedie_score",
                  "explained_variance_score", "max_error", "mean_absolute_error",
                  "mean_absolute_percentage_error", "mean_gamma_deviance", "mean_pinball_loss",
                  "mean_poisson_deviance", "mean_squared_error", "mean_squared_log_error",
                  "mean_tweedie_deviance", "median_absolute_error", "r2_score",
                  "root_mean_squared_error", "root_mean_squared_log_error"):
        cases.append(metric(fname, metrics, (yr, pr), "one target"))
        if fname not in single_only:
            cases.append(metric(fname, metrics, (yr2, pr2), "two targets, raw_values",
                                multioutput="raw_values"))
    for fname in ("additive_chi2_kernel", "chi2_kernel", "cosine_distances", "cosine_similarity",
                  "euclidean_distances", "haversine_distances", "laplacian_kernel",
                  "linear_kernel", "manhattan_distances", "nan_euclidean_distances",
                  "pairwise_distances", "pairwise_distances_argmin",
                  "pairwise_distances_argmin_min", "pairwise_kernels", "polynomial_kernel",
                  "rbf_kernel", "sigmoid_kernel"):
        inputs = (A[:, :2], B[:, :2]) if fname == "haversine_distances" else (A, B)
        cases.append(metric(fname, pairwise, inputs, "X, Y"))
    for kern in ("rbf", "polynomial", "laplacian", "cosine", "chi2"):
        cases.append(metric("pairwise_kernels", pairwise, (A, B), f"metric='{kern}'",
                            metric=kern))
    for dist in ("euclidean", "manhattan", "cosine", "sqeuclidean", "chebyshev", "minkowski"):
        cases.append(metric("pairwise_distances", pairwise, (A, B), f"metric='{dist}'",
                            metric=dist))
    for fname in ("paired_cosine_distances", "paired_euclidean_distances",
                  "paired_manhattan_distances"):
        cases.append(metric(fname, pairwise, (A, A[::-1]), "X, Y"))
    lab = np.asarray([1, 0, 1, 0, 1, 1, 0, 2, 2, 2])
    Xc = rng.standard_normal((10, 3))
    for fname in ("calinski_harabasz_score", "davies_bouldin_score", "silhouette_score"):
        mod = cluster if hasattr(cluster, fname) else metrics
        cases.append(Case("metric", fname, lambda to, f=getattr(mod, fname): f(to(Xc), to(lab)),
                          "clustering, X and labels"))
    for fname in ("adjusted_rand_score", "rand_score", "mutual_info_score",
                  "adjusted_mutual_info_score", "normalized_mutual_info_score",
                  "homogeneity_score", "completeness_score", "v_measure_score",
                  "fowlkes_mallows_score"):
        cases.append(metric(fname, metrics, (lab, lab[::-1]), "clustering, two labelings"))

    # ---- tools
    def split(to: Callable) -> Any:
        return train_test_split(to(X), to(y_reg), random_state=0)

    def split_stratified(to: Callable) -> Any:
        return train_test_split(to(X), to(y_cls), random_state=0, stratify=to(y_cls))

    def cvp(to: Callable) -> Any:
        return cross_val_predict(LinearDiscriminantAnalysis(), to(X), to(y_cls), cv=3)

    def lbin(to: Callable) -> Any:
        return label_binarize(to(y_cls), classes=[0, 1, 2])

    cases += [
        Case("tool", "model_selection.train_test_split", split, "shuffle"),
        Case("tool", "model_selection.train_test_split", split_stratified, "stratify=y"),
        Case("tool", "model_selection.cross_val_predict", cvp, "LinearDiscriminantAnalysis, cv=3"),
        Case("tool", "preprocessing.label_binarize", lbin, "classes=[0, 1, 2]"),
    ]
    assert sklearn
    return cases


# ---- SciPy -------------------------------------------------------------------------------------
_RNG = np.random.default_rng(5)
U = np.linspace(0.15, 0.85, 6)  # inside (0, 1)
POS = np.linspace(0.5, 3.0, 6)
INTS = np.arange(6.0)  # integer-valued floats
S1 = _RNG.standard_normal(20)
S2 = _RNG.standard_normal(20) * 1.5 + 0.3
S3 = _RNG.standard_normal(17) - 0.2
M = _RNG.standard_normal((20, 3))

#: argument recipes for scipy.special: name -> host inputs (positional)
SPECIAL_ARGS: dict[str, tuple] = {
    "bdtr": (INTS, INTS + 5, U), "bdtrc": (INTS, INTS + 5, U), "bdtri": (INTS, INTS + 5, U),
    "nbdtr": (INTS, INTS + 5, U), "nbdtrc": (INTS, INTS + 5, U), "nbdtri": (INTS, INTS + 5, U),
    "pdtr": (INTS, POS), "pdtrc": (INTS, POS), "pdtri": (INTS, U),
    "expn": (INTS, POS), "yn": (INTS, POS), "polygamma": (INTS, POS),
    "multigammaln": (POS + 3.0, 3), "zeta": (POS + 1.0,), "lpmv": (INTS, POS, U * 2 - 1),
    "logsumexp": (M,), "softmax": (M,), "log_softmax": (M,),
    "erfinv": (U * 2 - 1,), "ndtri": (U,), "logit": (U,), "entr": (U,),
    "ellipkm1": (U,), "ellipk": (U,), "boxcox1p": (U, POS), "inv_boxcox1p": (U, POS),
}


def special_cases() -> list[Case]:
    import scipy.special as sp
    from scipy._lib._array_api import xp_capabilities_table

    cases = []
    for fn, caps in xp_capabilities_table.items():
        mod = getattr(fn, "__module__", "") or ""
        if not mod.startswith("scipy.special") or caps.get("np_only") or caps.get("out_of_scope"):
            continue
        name = fn.__name__
        public = getattr(sp, name, None)
        if public is None:
            continue
        if name in SPECIAL_ARGS:
            args = SPECIAL_ARGS[name]
        else:
            nin = getattr(getattr(public, "__wrapped__", None), "nin", None)
            if nin is None:
                try:
                    params = [p for p in inspect.signature(public).parameters.values()
                              if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                     p.POSITIONAL_OR_KEYWORD)]
                    nin = len(params)
                except (TypeError, ValueError):
                    nin = 1
            args = tuple(POS if i else U for i in range(max(nin, 1)))
        run = _special_runner(public, args)
        cases.append(Case("scipy.special", name, run, _describe(args)))
    return sorted(cases, key=lambda c: c.name)


def _special_runner(fn: Callable, args: tuple) -> Callable:
    def run(to: Callable) -> Any:
        return fn(*(to(a) if isinstance(a, np.ndarray) else a for a in args))

    return run


def _describe(args: tuple) -> str:
    parts = []
    for a in args:
        parts.append(f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a))
    return ", ".join(parts)


def stats_cases() -> list[Case]:
    import scipy.stats as st
    from scipy._lib._array_api import xp_capabilities_table

    def t(fn: Callable, *args: Any, **kw: Any) -> Callable:
        def run(to: Callable) -> Any:
            return fn(*(to(a) if isinstance(a, np.ndarray) else a for a in args), **kw)

        return run

    pos = np.abs(M) + 0.1
    probs = np.linspace(0.01, 0.2, 8)

    def recipes(name: str) -> tuple[Callable, str] | None:
        fn = getattr(st, name)
        one = {"gmean": pos, "hmean": pos, "gstd": pos, "variation": pos, "entropy": pos,
               "kstat": S1, "kstatvar": S1, "jarque_bera": S1, "lmoment": S1,
               "differential_entropy": S1, "sigmaclip": S1, "rankdata": M,
               "false_discovery_control": probs, "combine_pvalues": probs}
        if name in one:
            return t(fn, one[name]), "one sample"
        if name in ("pmean",):
            return t(fn, pos, 1.5), "p=1.5"
        if name in ("trim_mean",):
            return t(fn, M, 0.1), "proportiontocut=0.1"
        if name in ("boxcox_llf", "yeojohnson_llf"):
            return t(fn, 0.5, pos), "lmb=0.5"
        if name == "ttest_1samp":
            return t(fn, M, 0.0), "popmean=0"
        if name == "ttest_ind_from_stats":
            return t(fn, np.asarray([0.1]), np.asarray([1.0]), np.asarray([20.0]),
                     np.asarray([0.3]), np.asarray([1.2]), np.asarray([17.0])), "stats"
        if name == "zmap":
            return t(fn, S1, S2), "scores, compare"
        if name == "quantile":
            return t(fn, S1, np.asarray([0.25, 0.5, 0.9])), "p=[0.25, 0.5, 0.9]"
        if name in ("chisquare", "power_divergence"):
            return t(fn, np.asarray([16.0, 18.0, 16.0, 14.0, 12.0, 12.0])), "f_obs"
        if name in ("cramervonmises", "ks_1samp"):
            from scipy.special import ndtr

            return t(fn, S1, ndtr), "cdf=scipy.special.ndtr"
        if name in ("circmean", "circvar", "circstd"):
            return t(fn, M), "one sample"
        if name == "directional_stats":
            v = M / np.linalg.norm(M, axis=1, keepdims=True)
            return t(fn, v), "unit vectors"
        if name in ("f_oneway", "alexandergovern", "kruskal", "bartlett", "levene", "fligner",
                    "friedmanchisquare"):
            if name == "friedmanchisquare":
                return t(fn, S1, S2, S1 * 0.5 + S2), "three samples"
            return t(fn, S1, S2, S3), "three samples"
        if name in ("ttest_ind", "ttest_rel", "pearsonr", "mannwhitneyu", "brunnermunzel",
                    "ansari", "mood", "epps_singleton_2samp", "cramervonmises_2samp",
                    "chatterjeexi", "spearmanrho", "wilcoxon"):
            return t(fn, S1, S2), "two samples"
        if name == "bootstrap":
            def run(to: Callable) -> Any:
                def mean(a: Any, axis: int = -1) -> Any:
                    return a.__array_namespace__().mean(a, axis=axis)

                return fn((to(S1),), mean, n_resamples=99, rng=0, method="percentile")

            return run, "statistic=mean, 99 resamples"
        if name == "monte_carlo_test":
            def run(to: Callable) -> Any:
                rng = np.random.default_rng(0)

                def mean(a: Any, axis: int = -1) -> Any:
                    return a.__array_namespace__().mean(a, axis=axis)

                return fn(to(S1), lambda size: to(rng.standard_normal(size)), mean,
                          n_resamples=99, vectorized=True)

            return run, "rvs=standard normal, statistic=mean, 99 resamples"
        if name == "permutation_test":
            def run(to: Callable) -> Any:
                def s(a: Any, b: Any, axis: int = -1) -> Any:
                    ns = a.__array_namespace__()
                    return ns.mean(a, axis=axis) - ns.mean(b, axis=axis)

                return fn((to(S1), to(S2)), s, n_resamples=99, rng=0, vectorized=True)

            return run, "difference of means, 99 resamples"
        if name == "power":
            return None
        params = list(inspect.signature(fn).parameters)
        if params and params[0] in ("a", "x", "data", "samples", "values", "sample", "scores"):
            return t(fn, M if name not in ("tmin", "tmax") else S1), "one sample"
        return None

    cases = []
    for fn, caps in xp_capabilities_table.items():
        mod = getattr(fn, "__module__", "") or ""
        name = fn.__name__
        if (not mod.startswith("scipy.stats") or caps.get("np_only") or caps.get("out_of_scope")
                or name.startswith("_") or not hasattr(st, name)):
            continue
        r = recipes(name)
        if r is None:
            cases.append(Case("scipy.stats", name, None, "(no argument recipe in this script)"))
        else:
            cases.append(Case("scipy.stats", name, r[0], r[1]))
    return sorted(cases, key=lambda c: c.name)


def exact_marray_test() -> Callable[[], None]:
    """Replace SciPy's substring test for MArray by an exact one; return the undo."""
    import scipy._lib._array_api as aa

    original = aa.is_marray

    def is_marray(ns: Any) -> bool:
        return ns.__name__.split(".")[0] == "marray"

    def clear_caches() -> None:  # scipy.special caches one wrapper per namespace
        from scipy.special import _support_alternative_backends as sab

        sab._FuncInfo._wrapper_for.cache_clear()

    patched = []
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("scipy") and getattr(mod, "is_marray", None) is original:
            mod.is_marray = is_marray
            patched.append(mod)
    clear_caches()

    def undo() -> None:
        for mod in patched:
            mod.is_marray = original
        clear_caches()

    return undo


# ---- the report --------------------------------------------------------------------------------
def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _why(o: Outcome) -> str:
    if o.status == "pass":
        return ""
    if o.status == "not run":
        return _cell(o.why)
    parts = []
    if o.cause:
        who = next(w for k, w, _, _ in KNOWN_CAUSES if k == o.cause)
        parts.append(f"{who}: [{o.cause}](#{o.cause})")
    parts.append(f"`{_cell(o.why)}`" if not o.why.startswith(("result", "fitted")) else _cell(o.why))
    if o.strict:
        if o.strict == "pass":
            parts.append("array-api-strict passes (usmarray-specific)")
        elif o.strict.startswith("fail"):
            parts.append("fails on array-api-strict too")
    return " — ".join(parts)


def _status(o: Outcome) -> str:
    return {"pass": "pass", "fail": "**fail**", "not run": "not run"}[o.status]


def render(results: dict[str, list[tuple[Case, Outcome]]], versions: dict[str, str],
           device: str) -> str:
    out = [
        "# Compatibility with scikit-learn and SciPy",
        "",
        "<!-- generated by scripts/compat_table.py; edit that script, not this file -->",
        "",
        "What happens when scikit-learn and SciPy get usmarray arrays. The page is "
        "written by `python scripts/compat_table.py` (see [How to regenerate]"
        "(#how-to-regenerate)); each row is a call that was made, not a claim copied from "
        "another document.",
        "",
        "| package | version |",
        "| --- | --- |",
    ]
    out += [f"| {k} | {v} |" for k, v in versions.items()]
    out += [
        "",
        f"Device: `{device}` (the default SYCL device), `SCIPY_ARRAY_API=1`, "
        "`sklearn.set_config(array_api_dispatch=True)`.",
        "",
        "## How each row is checked",
        "",
        "The call runs on NumPy arrays (the reference) and on usmarray arrays on the "
        "default device. **pass**: every array in the result (fitted attributes ending in "
        "`_` and the results of `predict`, `predict_proba`, `decision_function`, "
        "`transform`, `score_samples` for estimators) is a usmarray array on the input's "
        f"device, and values agree with NumPy's within rtol={RTOL:g}, atol={ATOL:g} "
        "(columns of SVD-based LDA results up to sign). **fail**: the error, or what "
        "differs, and where. A failing call is retried on array-api-strict: *fails on "
        "array-api-strict too* points at the library, *array-api-strict passes* at "
        "something usmarray does differently. *not run*: the call fails on NumPy too "
        "(the row's arguments do not suit this version).",
        "",
    ]
    titles = {
        "estimator": "scikit-learn estimators",
        "metric": "scikit-learn metrics and pairwise functions",
        "tool": "scikit-learn tools",
        "scipy.special": "SciPy: scipy.special",
        "scipy.stats": "SciPy: scipy.stats",
    }
    summary = ["## Summary", "", "| section | pass | fail | not run |", "| --- | --- | --- | --- |"]
    body: list[str] = []
    for section, rows in results.items():
        if not rows:
            continue
        counts = {s: sum(o.status == s for _, o in rows) for s in ("pass", "fail", "not run")}
        summary.append(f"| {titles[section]} | {counts['pass']} | {counts['fail']} | "
                       f"{counts['not run']} |")
        body += ["", f"## {titles[section]}", ""]
        if section.startswith("scipy"):
            body += [
                "Functions that SciPy's capability table (`xp_capabilities`) marks as "
                "supporting the array API (neither NumPy-only nor out of scope). *without the "
                "name test*: the same call with SciPy's MArray detection made exact "
                "(see [scipy-marray-name](#scipy-marray-name)).",
                "",
                "| function | arguments | result | without the name test | why |",
                "| --- | --- | --- | --- | --- |",
            ]
            for c, o in rows:
                body.append(f"| `{c.name}` | {_cell(c.params)} | {_status(o)} | "
                            f"{o.extra.get('exact', '')} | {_why(o)} |")
        else:
            body += ["| name | parameters | result | why |", "| --- | --- | --- | --- |"]
            for c, o in rows:
                body.append(f"| `{c.name}` | {_cell(c.params)} | {_status(o)} | {_why(o)} |")
    used = set(re.findall(r"\]\(#([a-z0-9-]+)\)", "\n".join(body)))
    causes = ["", "## Known causes", ""]
    for key, who, _pattern, expl in KNOWN_CAUSES:
        if key in used:
            causes += [f"### {key}", "", f"*{who}.* {expl}", ""]
    regen = [
        "## How to regenerate",
        "",
        "```bash",
        "pip install scikit-learn scipy array-api-strict",
        "python scripts/compat_table.py            # rewrites docs/compatibility.md",
        "python scripts/compat_table.py --only scipy --out -   # one part, to stdout",
        "```",
        "",
        "The script sets `SCIPY_ARRAY_API=1` itself before importing SciPy. It takes about "
        "a minute on two CPU cores.",
        "",
    ]
    return "\n".join(out + summary + body + causes + regen)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    v = {"usmarray": xp.__version__, "kernel provider": str(xp.provider)}
    for pkg in ("scikit-learn", "scipy", "array-api-compat", "array-api-strict", "numpy",
                "dpnp", "dpctl"):
        try:
            v[pkg] = version(pkg)
        except PackageNotFoundError:
            v[pkg] = "not installed"
    return v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "compatibility.md"),
                    help="where to write the Markdown ('-' for stdout)")
    ap.add_argument("--only", default="sklearn,scipy", help="comma list: sklearn, scipy")
    ap.add_argument("--device", default=None, help="usmarray device (default: the default one)")
    args = ap.parse_args(argv)
    parts = set(args.only.split(","))
    dev = xp.Device.create_device(args.device)

    import sklearn

    sklearn.set_config(array_api_dispatch=True)
    results: dict[str, list[tuple[Case, Outcome]]] = {}
    groups: list[tuple[str, Callable[[], list[Case]]]] = []
    if "sklearn" in parts:
        groups.append(("sklearn", sklearn_cases))
    if "scipy" in parts:
        groups += [("scipy", special_cases), ("scipy", stats_cases)]
    usm, strict = usmarray_target(dev), strict_target()
    for _part, make in groups:
        for case in make():
            o = run_case(case, usm, strict)
            results.setdefault(case.section, []).append((case, o))
            print(f"{case.section:14s} {case.name:40s} {o.status:8s} {o.why[:90]}",
                  file=sys.stderr)
    if "scipy" in parts:
        undo = exact_marray_test()
        try:
            for section in ("scipy.special", "scipy.stats"):
                for case, o in results.get(section, []):
                    if o.status == "not run":
                        continue
                    if o.status == "pass":
                        o.extra["exact"] = "pass"
                        continue
                    o2 = run_case(case, usm, strict)
                    o.extra["exact"] = "pass" if o2.status == "pass" else "fail: " + _why(o2)
        finally:
            undo()
    text = render(results, versions(), repr(dev))
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
