"""Audit 28a (ARX core): defects of ``generalize`` and its sign-off found by a hostile user.

- a quasi-identifier named like a column of ``r.lattice`` (``status``, ``height``, ``loss``...)
  was overwritten there, and the sign-off crashed or reported another hierarchy height;
- a hierarchy of more than 127 levels wrapped in the lattice's Int8 level columns (level -126)
  and the sign-off showed a height below the chosen level;
- ``suppressed_as=""`` was accepted by ``generalize`` but refused by every reader of the
  release (the problem's log, its sign-off, the risk measures).
"""
import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import SDCError
from polars_sdc.generalize import Hierarchy


def _frame():
    df = pl.DataFrame({"status": ["a", "a", "b", "b", "c", "c"], "height": ["1", "2", "1", "2", "1", "2"]})
    hs = {"status": Hierarchy([["a", "b", "c"], ["ab", "ab", "c"], ["*"] * 3]),
          "height": Hierarchy([["1", "2"], ["*", "*"]])}
    return df, hs


def test_quasi_identifiers_named_like_lattice_columns_keep_their_levels():
    df, hs = _frame()
    r = df.sdc.generalize(hs, k=2)
    lat = r.lattice
    # the metadata columns are intact ...
    assert set(lat["status"].unique().to_list()) <= {"anonymous", "not anonymous", "unknown"}
    assert lat["height"].to_list() == [0, 1, 1, 2, 2, 3]
    # ... and each quasi-identifier's level column is there, under a name of its own
    assert r.level_columns == {"status": "status_level", "height": "height_level"}
    levels = lat.select(r.level_columns["status"], r.level_columns["height"]).rows()
    assert levels == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    best = lat.filter("optimal")
    assert best.select(*r.level_columns.values()).row(0) == tuple(r.transformation)
    assert r.heights == {"status": 2, "height": 1}


def test_sign_off_with_a_quasi_identifier_named_status_or_height():
    df, hs = _frame()
    p = df.sdc.problem(keys=["status", "height"]).generalize(hierarchies=hs, k=2)
    t = p.sign_off().table("generalization")
    assert t.select("quasi-identifier", "level", "of (hierarchy height)").rows() == [
        ("status", 0, 2), ("height", 1, 1)]


def test_a_hierarchy_of_more_than_127_levels_does_not_wrap():
    vals = ["x" * 129 + "a", "x" * 129 + "b", "y" * 130]
    df = pl.DataFrame({"c": vals + vals})
    h = Hierarchy.masking(vals)
    assert h.height == 130
    r = df.sdc.generalize({"c": h}, k=4)
    assert r.levels == {"c": 130} and r.heights == {"c": 130}
    assert r.lattice.filter("optimal")["c"].to_list() == [130]
    assert r.lattice["c"].min() == 0 and r.lattice["c"].max() == 130
    p = df.sdc.problem(keys=["c"]).generalize(hierarchies={"c": h}, k=4)
    assert p.sign_off().table("generalization").select("level", "of (hierarchy height)").row(0) == (130, 130)


def test_an_empty_suppression_label_is_refused_up_front():
    df = pl.DataFrame({"a": ["x", "x", "y"], "b": ["u", "u", "v"]})
    hs = {"a": Hierarchy([["x", "y"], ["*", "*"]]), "b": Hierarchy([["u", "v"], ["*", "*"]])}
    with pytest.raises(SDCError, match="suppressed_as"):
        df.sdc.generalize(hs, k=2, suppression_limit=0.5, suppressed_as="")
    with pytest.raises(SDCError, match="suppressed_as"):
        df.lazy().sdc.generalize_release(hs, k=2, suppression_limit=0.5, suppressed_as="")
    with pytest.raises(SDCError, match="suppressed_as"):
        df.sdc.problem(keys=["a", "b"]).generalize(hierarchies=hs, k=2, suppression_limit=0.5, suppressed_as="")
    # a label and None still work, and the readers accept what generalize released
    for label in ("*", "(suppressed)", None):
        r = df.sdc.generalize(hs, k=2, suppression_limit=0.5, suppressed_as=label)
        assert r.frame.row(2) == (label, label)
        assert r.frame.sdc.k_anonymity(["a", "b"], suppressed_as=r.suppressed_as) == 2
