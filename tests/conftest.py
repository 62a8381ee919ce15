import os
import sys

# USMARRAY_TEST_WITHOUT_SYCL=1 runs the suite as on a machine without dpctl/dpnp (a GPU
# machine, macOS): importing them raises ImportError, SYCL-only tests skip
if os.environ.get("USMARRAY_TEST_WITHOUT_SYCL") == "1":
    import importlib.abc

    class _WithoutSycl(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in ("dpctl", "dpnp"):
                raise ModuleNotFoundError(f"{name} is blocked (USMARRAY_TEST_WITHOUT_SYCL=1)",
                                          name=name)
            return None

    sys.meta_path.insert(0, _WithoutSycl())

# scikit-learn and SciPy dispatch on array API namespaces only when this is set before
# SciPy is first imported
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import HealthCheck, settings

# CI draws the same examples on every run (derandomize): a failure there is one anyone
# can reproduce; "dev" explores with new random draws each run
settings.register_profile(
    "ci", max_examples=15, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# USMARRAY_TEST_BACKEND=toy runs the tests on tests/toy_backend.py's backend (a queue of
# its own, no SYCL): the proof that a backend needs nothing but the protocol
if os.environ.get("USMARRAY_TEST_BACKEND") == "toy":
    import usmarray as _xp

    sys.path.insert(0, os.path.dirname(__file__))
    from toy_backend import ToyBackend

    _xp.register_backend("toy", ToyBackend())
    _xp.set_default_device("toy")
