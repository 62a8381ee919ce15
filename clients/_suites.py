"""The client suites: what ``python -m clients`` runs, per client.

A suite is a list of pytest arguments (``--pyargs`` modules and an optional ``-k``);
``quick`` is the slice CI runs (tests/test_clients.py), ``full`` the documented run.
scikit-learn's full list is discovered from its installed tests: every test module
that parametrizes over ``yield_namespace_device_dtype_combinations`` /
``yield_namespaces`` or calls ``_array_api_for_tests``, plus the estimator checks of
``sklearn/tests/test_common.py`` (``check_array_api_input``).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Suite:
    name: str  # "sklearn" | "scipy" | "xpx"
    label: str  # for the table
    package: str  # the distribution's import name (to find its version)
    runs: tuple[tuple[str, ...], ...]  # pytest argument lists, one pytest process each
    extra: tuple[str, ...] = field(default=())  # arguments for every run


_SKLEARN_MARKERS = re.compile(
    r"yield_namespace_device_dtype_combinations|yield_namespaces|_array_api_for_tests"
)

SCIPY_MODULES = (
    "special", "stats", "cluster", "fft", "signal", "ndimage", "integrate", "optimize",
    "interpolate", "linalg", "spatial",
)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def sklearn_modules() -> list[str]:
    """Every scikit-learn test module that uses the array-API parametrization."""
    root = _package_dir("sklearn")
    if root is None:
        return []
    mods = []
    for path in sorted(root.rglob("tests/test_*.py")):
        if _SKLEARN_MARKERS.search(path.read_text(encoding="utf-8", errors="replace")):
            rel = path.relative_to(root.parent).with_suffix("")
            mods.append(".".join(rel.parts))
    return mods


#: ten modules that cover estimators (PCA, Ridge, discriminant analysis, naive Bayes,
#: kernel approximation), metrics, preprocessing and the array-API helpers: a short run
SKLEARN_LISTED = (
    "sklearn.utils.tests.test_array_api", "sklearn.metrics.tests.test_common",
    "sklearn.metrics.tests.test_pairwise", "sklearn.preprocessing.tests.test_data",
    "sklearn.preprocessing.tests.test_label", "sklearn.decomposition.tests.test_pca",
    "sklearn.linear_model.tests.test_ridge", "sklearn.tests.test_discriminant_analysis",
    "sklearn.tests.test_kernel_approximation", "sklearn.tests.test_naive_bayes",
)


def full_suites(sklearn: str = "all", scipy: str = "all") -> dict[str, Suite]:
    """``sklearn``: "all" (every module using the parametrization, and the estimator
    checks) or "listed" (SKLEARN_LISTED); ``scipy``: "all" or comma-separated names."""
    if sklearn == "listed":
        sk_runs: tuple[tuple[str, ...], ...] = (SKLEARN_LISTED,)
    else:
        sk_mods = [m for m in sklearn_modules() if m != "sklearn.tests.test_common"]
        sk_runs = (
            tuple(sk_mods), ("sklearn.tests.test_common", "-k", "check_array_api_input"),
        )
    sp_mods = SCIPY_MODULES if scipy == "all" else tuple(scipy.split(","))
    return {
        "sklearn": Suite("sklearn", "scikit-learn", "sklearn", runs=sk_runs),
        "scipy": Suite(
            "scipy", "SciPy", "scipy", runs=tuple((f"scipy.{m}",) for m in sp_mods),
        ),
        "xpx": Suite(
            "xpx", "array-api-extra", "array_api_extra",
            runs=(("array_api_extra.tests.main",),),
        ),
    }


def quick_suites() -> dict[str, Suite]:
    """The CI slice: one pytest session over the three clients (a few hundred tests, well
    under a minute), the cases that found usmarray bugs before: NumPy scalars in
    ``x[mask] = v`` (scalers), integer division (balanced_accuracy_score), a fitted
    attribute's dtype (RidgeCV), SciPy's MArray name test (scipy.special, scipy.stats),
    array-api-extra's ``at`` and set functions."""
    run = (
        "sklearn.preprocessing.tests.test_label",
        "sklearn.preprocessing.tests.test_data",
        "sklearn.linear_model.tests.test_ridge",
        "sklearn.metrics.tests.test_common",
        "scipy.special.tests.test_support_alternative_backends",
        "scipy.stats.tests.test_entropy",
        "array_api_extra.tests.main.test_at",
        "array_api_extra.tests.main.test_set",
        "-k", "label_encoder or scaler and array_api or ridgecv or balanced_accuracy or "
        "expit or log_ndtr or entropy_basic or setdiff1d or test_update_ops and set",
    )
    return {"quick": Suite("quick", "all three (CI slice)", "sklearn", runs=(run,))}
