"""Local suppression with ``combs=`` against the time budget (audit 28).

The exact search on every key is refused when a round is estimated above
``MAX_ROUND_SECONDS``, naming the largest ``combs`` size whose whole run fits in ``ROUNDS x
MAX_ROUND_SECONDS``. A ``combs`` run itself was never refused: each subset's search is small,
but C(m, c) of them add up (combs=[6] on 18 keys x 3,000 records: 18,564 subsets, estimated
at 227 s, ran ~150 s while the full search was refused at 60 s). Now the sum is refused the
same way, before any subset is searched, naming what fits.
"""
import re

import numpy as np
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.masking import suppress as S


def _uniques(m: int, n: int, ncat: int = 4, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({f"k{j}": rng.integers(0, ncat, n) for j in range(m)})


def test_a_combs_run_over_the_budget_is_refused_before_the_work(monkeypatch):
    df = _uniques(18, 3000)
    calls = []
    real = S._suppress_keys
    monkeypatch.setattr(S, "_suppress_keys", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    with pytest.raises(SDCError) as e:
        df.sdc.suppress(3, df.columns, combs=[6])
    assert not calls
    msg = str(e.value)
    assert msg.startswith("suppress: combs=[6] on 18 keys (18,564 key subsets, 3,000 of 3,000 records short of k")
    assert "the limit is 60 s in all" in msg
    # the same hint as the refusal of the full search names
    with pytest.raises(SDCError) as full:
        df.sdc.suppress(3, df.columns)
    hint = re.search(r"combs=\[\d+\] fits, estimated at [\d,]+ s in all", str(full.value)).group(0)
    assert hint in msg and hint.startswith("combs=[5] fits")


def test_the_named_combs_size_passes_the_gate(monkeypatch):
    # a small budget (0.05 s a round, 0.5 s in all) on 12 keys x 500 records: combs=[4] refused,
    # the size it names accepted by the same gate (the work itself stubbed out: the estimate's
    # accuracy is not what this test pins, docs/masking.md gives its known gap)
    monkeypatch.setattr(S, "MAX_ROUND_SECONDS", 0.05)
    df = _uniques(12, 500)
    with pytest.raises(SDCError, match=r"combs=\[4\] on 12 keys \(495 key subsets") as e:
        df.sdc.suppress(3, df.columns, combs=[4])
    c = int(re.search(r"here combs=\[(\d+)\] fits", str(e.value)).group(1))
    fits = [size for size in range(1, 12) if S.combs_seconds(size, 12, 500, 500, 1) <= 0.5]
    assert c == max(fits)
    # sizes add up: two sizes that each fit are refused together when their sum does not
    small = [size for size in fits if S.combs_seconds(size, 12, 500, 500, 1) + S.combs_seconds(c, 12, 500, 500, 1) > 0.5
             and size != c][0]
    with pytest.raises(SDCError, match=rf"combs=\[{small}, {c}\] on 12 keys .*here combs=\[{c}\] fits"):
        df.sdc.suppress(3, df.columns, combs=[c, small])
    monkeypatch.setattr(S, "_suppress_keys", lambda C, *a, **kw: np.full_like(C, -1))   # every key suppressed
    out = df.sdc.suppress(3, df.columns, combs=[c])                # past the gate
    assert out.null_count().sum_horizontal().item() == 12 * 500


def test_combs_within_the_budget_and_a_single_subset_are_not_refused():
    df = _uniques(6, 200)
    out = df.sdc.suppress(3, df.columns, combs=[2, 3])
    assert out.height == 200
    # combs=[m]: one subset, the full search's per-round rule (runs)
    assert df.sdc.suppress(3, df.columns, combs=[6]).equals(df.sdc.suppress(3, df.columns))
