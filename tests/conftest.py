import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401  (registers the namespaces)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
