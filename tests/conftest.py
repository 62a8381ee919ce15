import os

# scikit-learn and SciPy dispatch on array API namespaces only when this is set before
# SciPy is first imported
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
