import os

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, settings

import polars_sdc  # noqa: F401  (registers the namespaces)

# No "compiling kernels" line on stderr in tests that check stderr (a cold cache compiles
# inside them); tests/test_compile_notice.py turns it on in its own processes.
os.environ.setdefault("POLARS_SDC_COMPILE_NOTICE", "0")

# Hypothesis profiles. "default": hypothesis' own behaviour (random examples, each test's own
# max_examples). "ci": the same examples on every run (derandomize), no example database, no
# deadline -- chosen automatically when the CI environment variable is set. "nightly": many
# more examples (each test's own max_examples times NIGHTLY_FACTOR) and larger inputs where a
# test asks `size(small, large)`; run by tools/nightly.py. Select one explicitly with
# HYPOTHESIS_PROFILE=name or pytest's --hypothesis-profile=name.
NIGHTLY_FACTOR = 10
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile(
    "nightly", max_examples=1000, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
_profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else None)
if _profile:
    settings.load_profile(_profile)


def nightly() -> bool:
    """True when the heavy "nightly" hypothesis profile is active."""
    return settings().max_examples >= settings.get_profile("nightly").max_examples


def size(small: int, large: int) -> int:
    """An input-size bound for a property test: ``small`` normally, ``large`` in the nightly run."""
    return large if nightly() else small


def pytest_collection_modifyitems(config, items):
    # a test's own @settings(max_examples=...) overrides the profile; in the nightly profile
    # scale it up instead, so every property test runs NIGHTLY_FACTOR times as many examples
    if not nightly():
        return
    for item in items:
        fn = getattr(item, "obj", None)
        inner = getattr(getattr(fn, "hypothesis", None), "inner_test", None)
        own = getattr(inner, "_hypothesis_internal_use_settings", None) or getattr(
            fn, "_hypothesis_internal_use_settings", None)
        if own is None:
            continue
        scaled = settings(own, max_examples=own.max_examples * NIGHTLY_FACTOR, deadline=None)
        for target in (fn, inner):
            if target is not None and hasattr(target, "_hypothesis_internal_use_settings"):
                target._hypothesis_internal_use_settings = scaled


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
