"""The release report when a generalisation suppressed every record: no released class, so no
l or t after. The verdict said "l-diversity 1 -> n/a", the sensitive table held NaN (and the
JSON facts a NaN, which is not JSON); now they say "no released class"."""
import json
import math

import polars as pl

import polars_sdc  # noqa: F401

EVERY = pl.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "v", "v", "u"], "s": ["p", "q", "p", "q"]})
H = {"a": {"x": ["*"], "y": ["*"]}, "b": {"u": ["*"], "v": ["*"]}}


def _signed_off():
    g = EVERY.sdc.problem(keys=["a", "b"], sensitive="s").generalize(hierarchies=H, k=5, suppression_limit=1.0)
    assert g.generalization().suppressed == 4
    return g.sign_off()


def test_verdict_and_facts_say_no_released_class():
    r = _signed_off()
    assert r.facts["l_before"] == 1.0 and r.facts["l_after"] is None
    assert "s: l-diversity 1 -> no released class (every record suppressed)" in r.verdict
    assert "nan" not in r.verdict.lower() and "n/a" not in r.verdict
    json.dumps(r.facts, allow_nan=False)          # strict JSON: no NaN left


def test_the_sensitive_table_and_the_html_page_say_no_released_class():
    r = _signed_off()
    sens = r.table("sensitive")
    after = sens.filter(pl.col("release") == "after").row(0, named=True)
    assert after["l (distinct values per class, smallest)"] is None and after["t (closeness, largest)"] is None
    assert sens.filter(pl.col("release") == "before")["l (distinct values per class, smallest)"].item() == 1.0
    page = r.to_html()
    i = page.index("<td class='txt'>after</td>")
    row = page[i:page.index("</tr>", i)]
    assert row.count("no released class") == 3 and "n/a" not in row and "NaN" not in row
    assert "no released class" in str(r)          # the text view too


def test_a_release_with_classes_keeps_its_numbers():
    g = EVERY.sdc.problem(keys=["a", "b"], sensitive="s").generalize(hierarchies=H, k=2, suppression_limit=0.0)
    r = g.sign_off()
    want = float(g.release().sdc.l_diversity(["a", "b"], "s", suppressed_as="*")["l_diversity"].min())
    assert r.facts["l_after"] == want >= 1 and "no released class" not in r.verdict
    assert not math.isnan(r.table("sensitive")["t (closeness, largest)"][1])
