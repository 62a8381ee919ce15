"""scikit-learn's array API dispatch with usmarray inputs.

Every case runs twice under ``sklearn.config_context(array_api_dispatch=True)``:
once on NumPy arrays (the reference) and once on usmarray arrays on the default
SYCL device.  Results must agree within float tolerance, results and fitted
attributes must be usmarray arrays on the input's device.

scikit-learn refuses dispatch unless ``SCIPY_ARRAY_API=1`` was set before SciPy was
imported; this module sets it before importing either (the suite imports SciPy
nowhere else).  scikit-learn's own array-API tests run with usmarray through
``python -m clients`` (docs/compatibility.md).
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numbers  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import usmarray as xp  # noqa: E402

sklearn = pytest.importorskip("sklearn")
scipy = pytest.importorskip("scipy")

from scipy._lib import _array_api as _scipy_xp  # noqa: E402
from sklearn import metrics  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis  # noqa: E402
from sklearn.kernel_approximation import Nystroem  # noqa: E402
from sklearn.linear_model import (  # noqa: E402
    LogisticRegression,
    PoissonRegressor,
    Ridge,
    RidgeClassifier,
    RidgeClassifierCV,
    RidgeCV,
)
from sklearn.metrics import pairwise  # noqa: E402
from sklearn.mixture import GaussianMixture  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import (  # noqa: E402
    Binarizer,
    KernelCenterer,
    LabelEncoder,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    PolynomialFeatures,
    StandardScaler,
)

SYCL = xp.__array_namespace_info__().default_device()
pytestmark = pytest.mark.skipif(SYCL.backend != "sycl", reason="no SYCL device in this environment")


@pytest.fixture(scope="module", autouse=True)
def _dispatch():
    if not _scipy_xp.SCIPY_ARRAY_API:
        pytest.fail(
            "SciPy was imported before this module set SCIPY_ARRAY_API=1; run with "
            "SCIPY_ARRAY_API=1 in the environment"
        )
    with sklearn.config_context(array_api_dispatch=True):
        yield


RNG = np.random.default_rng(7)
X = RNG.standard_normal((48, 5))
Y_CLASS = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 0.8)
Y_REG = X @ RNG.standard_normal(5) + 0.1 * RNG.standard_normal(48)
Y_POS = np.exp(Y_REG / 4)


def host(r):
    if isinstance(r, xp.usm_ndarray):
        return xp.asnumpy(r)
    return np.asarray(r)


def check_array_result(ref, got, dev, rtol=1e-6, atol=1e-8, name="result", sign_free=False):
    """``ref`` (NumPy run) against ``got`` (usmarray run): type, device, shape, values.
    ``sign_free``: columns of an SVD-based result may differ in sign only."""
    if isinstance(ref, np.ndarray):
        assert type(got) is xp.usm_ndarray, f"{name}: {type(got).__name__}, not usm_ndarray"
        assert got.device == dev, f"{name}: on {got.device}, input on {dev}"
        assert got.shape == ref.shape, name
        g = host(got)
        if sign_free and g.ndim == 2:
            g = g * np.where(np.sum(g * ref, axis=0) < 0, -1.0, 1.0)
        if ref.dtype.kind in "iub":
            np.testing.assert_array_equal(g, ref, err_msg=name)
        else:
            np.testing.assert_allclose(g, ref, rtol=rtol, atol=atol, err_msg=name)
    elif isinstance(ref, (tuple, list)):
        assert len(got) == len(ref), name
        for i, (a, b) in enumerate(zip(ref, got, strict=True)):
            check_array_result(a, b, dev, rtol, atol, f"{name}[{i}]")
    elif isinstance(ref, numbers.Number):
        assert isinstance(got, numbers.Number) or getattr(got, "ndim", None) == 0, name
        np.testing.assert_allclose(float(got), float(ref), rtol=rtol, atol=atol, err_msg=name)
    else:
        assert ref == got, name


def fitted_arrays(est):
    return {
        k: v for k, v in vars(est).items()
        if k.endswith("_") and not k.startswith("_") and isinstance(v, np.ndarray)
    }


# fitted attributes and method results that are SVD-based without a sign convention
SIGN_FREE = {"scalings_", "transform"}

# (id, factory, target, methods)
ESTIMATORS = [
    ("LinearDiscriminantAnalysis", LinearDiscriminantAnalysis, Y_CLASS,
     ("predict", "predict_proba", "transform", "decision_function")),
    ("PCA-full", lambda: PCA(n_components=3, svd_solver="full"), None,
     ("transform", "inverse_transform", "score_samples")),
    ("PCA-covariance_eigh", lambda: PCA(n_components=3, svd_solver="covariance_eigh"), None,
     ("transform",)),
    ("PCA-randomized-QR",
     lambda: PCA(n_components=3, svd_solver="randomized", power_iteration_normalizer="QR",
                 random_state=0), None, ("transform",)),
    ("PCA-auto", lambda: PCA(n_components=2), None, ("transform",)),
    ("PCA-mle", lambda: PCA(n_components="mle", svd_solver="full"), None, ("transform",)),
    ("Ridge-svd", lambda: Ridge(alpha=0.5, solver="svd"), Y_REG, ("predict", "score")),
    ("Ridge-auto", lambda: Ridge(alpha=0.5), Y_REG, ("predict",)),
    ("RidgeClassifier", lambda: RidgeClassifier(solver="svd"), Y_CLASS,
     ("predict", "decision_function")),
    ("RidgeCV", lambda: RidgeCV(alphas=(0.1, 1.0, 10.0)), Y_REG, ("predict",)),
    ("RidgeClassifierCV", lambda: RidgeClassifierCV(alphas=(0.1, 1.0, 10.0)), Y_CLASS,
     ("predict", "decision_function")),
    ("LogisticRegression", lambda: LogisticRegression(max_iter=200), Y_CLASS,
     ("predict", "predict_proba")),
    ("PoissonRegressor", PoissonRegressor, Y_POS, ("predict",)),
    ("GaussianNB", GaussianNB, Y_CLASS, ("predict", "predict_proba", "predict_log_proba")),
    ("Nystroem-rbf", lambda: Nystroem(n_components=12, random_state=0), None, ("transform",)),
    ("Nystroem-poly", lambda: Nystroem(kernel="polynomial", degree=2, n_components=12,
                                       random_state=0), None, ("transform",)),
    ("StandardScaler", StandardScaler, None, ("transform", "inverse_transform")),
    ("MinMaxScaler", MinMaxScaler, None, ("transform", "inverse_transform")),
    ("MaxAbsScaler", MaxAbsScaler, None, ("transform", "inverse_transform")),
    ("Normalizer-l2", Normalizer, None, ("transform",)),
    ("Normalizer-l1", lambda: Normalizer(norm="l1"), None, ("transform",)),
    ("Normalizer-max", lambda: Normalizer(norm="max"), None, ("transform",)),
    ("Binarizer", lambda: Binarizer(threshold=0.2), None, ("transform",)),
    ("PolynomialFeatures", lambda: PolynomialFeatures(degree=2), None, ("transform",)),
    ("GaussianMixture", lambda: GaussianMixture(n_components=2, init_params="random",
                                                random_state=0), None,
     ("predict", "predict_proba", "score_samples")),
    ("Pipeline(StandardScaler, PCA)",
     lambda: make_pipeline(StandardScaler(), PCA(n_components=2, svd_solver="full")), None,
     ("transform",)),
]


@pytest.mark.parametrize(
    "factory, target, methods", [c[1:] for c in ESTIMATORS], ids=[c[0] for c in ESTIMATORS]
)
def test_estimator_matches_numpy(factory, target, methods):
    Xu = xp.asarray(X)
    lda = factory is LinearDiscriminantAnalysis
    with warnings.catch_warnings():
        # Ridge(solver="auto") says it picks "svd" for a non-NumPy namespace
        warnings.filterwarnings("ignore", message="Using Array API dispatch", category=UserWarning)
        ref = factory().fit(X, target) if target is not None else factory().fit(X)
        est = factory().fit(Xu, xp.asarray(target)) if target is not None else factory().fit(Xu)
    for name, ref_val in fitted_arrays(ref).items():
        check_array_result(ref_val, getattr(est, name), Xu.device, name=f"fitted {name}",
                           sign_free=lda and name in SIGN_FREE)
    for m in methods:
        arg_np, arg_x = X, Xu
        if m == "inverse_transform":
            arg_np, arg_x = ref.transform(X), est.transform(Xu)
        if m == "score":
            r_np, r_x = ref.score(X, target), est.score(Xu, xp.asarray(target))
        else:
            r_np, r_x = getattr(ref, m)(arg_np), getattr(est, m)(arg_x)
        check_array_result(r_np, r_x, Xu.device, rtol=1e-5, atol=1e-7, name=m,
                           sign_free=lda and m in SIGN_FREE)


@pytest.mark.parametrize("est", [StandardScaler(), PCA(2, svd_solver="full"), Ridge(solver="svd")],
                         ids=lambda e: type(e).__name__)
def test_float32_is_preserved(est):
    Xf = xp.asarray(X, dtype=xp.float32)
    if isinstance(est, Ridge):
        out = est.fit(Xf, xp.asarray(Y_REG, dtype=xp.float32)).predict(Xf)
        ref = Ridge(solver="svd").fit(X.astype(np.float32), Y_REG.astype(np.float32)).predict(
            X.astype(np.float32))
    else:
        out = est.fit_transform(Xf)
        ref = type(est)(**est.get_params()).fit_transform(X.astype(np.float32))
    assert out.dtype == xp.float32
    np.testing.assert_allclose(host(out), ref, rtol=2e-4, atol=2e-5)


def test_kernel_centerer():
    K = X @ X.T
    ref = KernelCenterer().fit(K)
    est = KernelCenterer().fit(xp.asarray(K))
    for name in ("K_fit_rows_", "K_fit_all_"):
        check_array_result(getattr(ref, name), getattr(est, name), SYCL, name=name)
    K2 = X[:5] @ X.T
    check_array_result(ref.transform(K2), est.transform(xp.asarray(K2)), SYCL)


@pytest.mark.parametrize("labels", [np.asarray([3, 1, 2, 3, 7, 1]), np.asarray([2.5, -1.0, 2.5, 0.0])],
                         ids=["int64", "float64"])
def test_label_encoder(labels):
    ref = LabelEncoder().fit(labels)
    est = LabelEncoder().fit(xp.asarray(labels))
    check_array_result(ref.classes_, est.classes_, SYCL, name="classes_")
    check_array_result(ref.transform(labels), est.transform(xp.asarray(labels)), SYCL)
    codes = np.asarray([0, len(ref.classes_) - 1, 1])
    check_array_result(ref.inverse_transform(codes), est.inverse_transform(xp.asarray(codes)), SYCL)
    check_array_result(ref.fit_transform(labels), LabelEncoder().fit_transform(xp.asarray(labels)),
                       SYCL)


# ---- metrics ---------------------------------------------------------------------------
N = 40
YB, PB, SB = RNG.integers(0, 2, N), RNG.integers(0, 2, N), RNG.random(N)
YM, PM = RNG.integers(0, 3, N), RNG.integers(0, 3, N)
SM = RNG.random((N, 3))
SM /= SM.sum(1, keepdims=True)
YL, PL = RNG.integers(0, 2, (N, 3)), RNG.integers(0, 2, (N, 3))
YR, PR = RNG.random(N) + 0.1, RNG.random(N) + 0.1
YR2, PR2 = RNG.random((N, 2)) + 0.1, RNG.random((N, 2)) + 0.1
A, B = RNG.random((9, 4)), RNG.random((6, 4))

LABEL_METRICS = [
    "accuracy_score", "balanced_accuracy_score", "cohen_kappa_score", "confusion_matrix",
    "f1_score", "fbeta_score",
    "hamming_loss", "jaccard_score", "multilabel_confusion_matrix", "precision_score",
    "precision_recall_fscore_support", "recall_score", "zero_one_loss",
]
AVERAGED = {"f1_score", "fbeta_score", "jaccard_score", "precision_score", "recall_score",
            "precision_recall_fscore_support"}
MULTILABEL_OK = {"accuracy_score", "f1_score", "fbeta_score", "hamming_loss", "jaccard_score",
                 "multilabel_confusion_matrix", "precision_score", "recall_score",
                 "zero_one_loss"}
REGRESSION_METRICS = [
    "d2_absolute_error_score", "d2_pinball_score", "explained_variance_score", "max_error",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_gamma_deviance",
    "mean_pinball_loss", "mean_poisson_deviance", "mean_squared_error", "mean_squared_log_error",
    "mean_tweedie_deviance", "median_absolute_error", "r2_score", "root_mean_squared_error",
    "root_mean_squared_log_error", "d2_tweedie_score",
]
SINGLE_OUTPUT_ONLY = {"max_error", "mean_gamma_deviance", "mean_poisson_deviance",
                      "mean_tweedie_deviance", "d2_tweedie_score"}
PAIRWISE = [
    "additive_chi2_kernel", "chi2_kernel", "cosine_distances", "cosine_similarity",
    "euclidean_distances", "laplacian_kernel", "linear_kernel", "manhattan_distances",
    "polynomial_kernel", "rbf_kernel", "sigmoid_kernel", "pairwise_distances",
    "pairwise_kernels", "pairwise_distances_argmin",
]
PAIRED = ["paired_cosine_distances", "paired_euclidean_distances", "paired_manhattan_distances"]

# scikit-learn 1.9 code that the standard does not cover; docs/compatibility.md says more
SKLEARN_SIDE = {
    "roc_curve": "calls xp.diff(x, 2): the standard's n is keyword-only",
    "roc_auc_score": "goes through roc_curve, which calls xp.diff(x, 2) (n is keyword-only)",
}


def _run_metric(fn, *arrays, **kw):
    ref = fn(*arrays, **kw)
    got = fn(*(xp.asarray(a) for a in arrays), **kw)
    check_array_result(ref, got, SYCL, rtol=1e-6, atol=1e-9, name=fn.__name__)


def _label_cases():
    for name in LABEL_METRICS:
        yield name, "binary"
        yield name, "multiclass"
        if name in MULTILABEL_OK:
            yield name, "multilabel"


@pytest.mark.parametrize("name, kind", list(_label_cases()))
def test_label_metrics(name, kind):
    fn = getattr(metrics, name)
    kw = {"beta": 0.5} if name == "fbeta_score" else {}
    if kind != "binary" and name in AVERAGED:
        kw["average"] = "macro"
    y, p = {"binary": (YB, PB), "multiclass": (YM, PM), "multilabel": (YL, PL)}[kind]
    _run_metric(fn, y, p, **kw)


@pytest.mark.parametrize("name", ["average_precision_score", "brier_score_loss", "log_loss",
                                  "d2_brier_score", "d2_log_loss_score", "precision_recall_curve",
                                  "det_curve"])
def test_score_metrics_binary(name):
    _run_metric(getattr(metrics, name), YB, SB)


@pytest.mark.parametrize("name", ["log_loss", "brier_score_loss", "d2_log_loss_score"])
def test_score_metrics_multiclass(name):
    _run_metric(getattr(metrics, name), YM, SM)


@pytest.mark.parametrize("name", REGRESSION_METRICS)
def test_regression_metrics(name):
    fn = getattr(metrics, name)
    _run_metric(fn, YR, PR)
    if name not in SINGLE_OUTPUT_ONLY:
        _run_metric(fn, YR2, PR2)
        _run_metric(fn, YR2, PR2, multioutput="raw_values")


@pytest.mark.parametrize("name", PAIRWISE)
def test_pairwise(name):
    fn = getattr(pairwise, name)
    _run_metric(fn, A, B)
    if name not in ("pairwise_distances_argmin",):
        _run_metric(fn, A)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_pairwise_distances_metric_names(metric):
    _run_metric(pairwise.pairwise_distances, A, B, metric=metric)


@pytest.mark.parametrize("kernel", ["linear", "rbf", "polynomial", "laplacian", "sigmoid",
                                    "cosine", "chi2", "additive_chi2"])
def test_pairwise_kernels_names(kernel):
    _run_metric(pairwise.pairwise_kernels, A, B, metric=kernel)


@pytest.mark.parametrize("name", PAIRED)
def test_paired(name):
    _run_metric(getattr(pairwise, name), A, A[::-1].copy())


@pytest.mark.parametrize("name", sorted(SKLEARN_SIDE))
def test_known_sklearn_side_failures(name):
    """These fail because scikit-learn 1.9 steps outside the standard; the day a
    release fixes one, this test fails and the entry must leave SKLEARN_SIDE."""
    fn = getattr(metrics, name)
    with pytest.raises(TypeError):
        fn(xp.asarray(YB), xp.asarray(SB))


# ---- devices other than the default -------------------------------------------------------
def _other_devices():
    yield pytest.param(xp.Device.create_device("numpy"), id="numpy-backend")
    dpctl = pytest.importorskip("dpctl")
    root = SYCL.sycl_device
    try:
        sub = root.create_sub_devices(partition=1)[0]
    except Exception:  # a device that cannot be partitioned
        return
    yield pytest.param(xp.Device.create_device(sub), id="sycl-sub-device")
    assert dpctl  # imported for the partition above


@pytest.mark.parametrize("dev", list(_other_devices()))
@pytest.mark.parametrize("factory, target", [
    (LinearDiscriminantAnalysis, Y_CLASS),
    (lambda: PCA(n_components=2, svd_solver="full"), None),
    (lambda: Ridge(solver="svd"), Y_REG),
    (StandardScaler, None),
    (GaussianNB, Y_CLASS),
], ids=["LDA", "PCA", "Ridge", "StandardScaler", "GaussianNB"])
def test_fitted_attributes_follow_the_input_device(request, dev, factory, target):
    Xd = xp.asarray(X, device=dev)
    with np.errstate(all="ignore"):
        ref = factory().fit(X, target) if target is not None else factory().fit(X)
        est = (factory().fit(Xd, xp.asarray(target, device=dev)) if target is not None
               else factory().fit(Xd))
    arrays = fitted_arrays(ref)
    assert arrays
    for name, ref_val in arrays.items():
        check_array_result(ref_val, getattr(est, name), dev, name=f"fitted {name}",
                           sign_free=name in SIGN_FREE)
    out = est.predict(Xd) if target is not None else est.transform(Xd)
    assert out.device == dev


def test_fit_and_transform_on_different_devices_are_refused():
    """scikit-learn compares usmarray Device objects between fit and transform."""
    est = PCA(n_components=2).fit(xp.asarray(X))
    with pytest.raises(ValueError, match="differ"):
        est.transform(xp.asarray(X, device="numpy"))
    # the same device (an equal Device, not the same object) is accepted
    est.transform(xp.asarray(X, device=xp.Device.create_device(SYCL.sycl_queue)))
