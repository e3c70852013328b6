"""sdc.report: the verdict's numbers against risk() and a record-by-record count, labelled risk
measures (no snake_case, a reason for every missing value), percent units, categorical utility,
the plots (labelled, non-blank, SUDA shares summing to 100 %), text / HTML views, the EU-SILC
release rendered in headless chromium."""
import base64
import os
import re
import shutil
import subprocess

import numpy as np
import polars as pl
import pytest

import polars_sdc as sdc
from polars_sdc import SDCError
from polars_sdc.risk.report import frequency_change, suda_shares, value_changes

from naive import reference_value_changes

REQUIRE_ALL = os.environ.get("SDC_REQUIRE_ALL") == "1"
SILC_KEYS = ["db040", "age", "rb090", "pb220a", "hsize", "pl030"]


@pytest.fixture(scope="module")
def release():
    rng = np.random.default_rng(3)
    n = 600
    df = pl.DataFrame({
        "age": rng.integers(18, 80, n), "sex": rng.choice(["f", "m"], n), "region": rng.integers(0, 6, n),
        "income": rng.lognormal(10, 1, n), "hours": rng.normal(40, 8, n),
        "disease": rng.choice(["a", "b", "c"], n),
    })
    masked = df.sdc.mdav(5, on=["income", "hours"]).with_columns((pl.col("age") // 10 * 10).alias("age"))
    rep = sdc.report(df, masked, on=["age", "sex", "region"], numeric=["income", "hours"], sensitive="disease")
    return df, masked, rep


@pytest.fixture(scope="module")
def silc():
    """EU-SILC: age in 5-year bands, PRAM on citizenship, local suppression to k = 3, noise on
    two income columns; the step log as the process object would hand it over."""
    df = sdc.datasets.eusilc()
    masked = (df.with_columns((pl.col("age") // 5 * 5).alias("age"))
              .sdc.pram("pb220a", pd=0.9, seed=1)
              .sdc.suppress(3, SILC_KEYS)
              .sdc.add_noise(["eqIncome", "hy090n"], noise=10.0, seed=1))
    steps = pl.DataFrame({
        "step": ["recode", "pram", "suppress", "add_noise"],
        "parameters": ["age: 5-year bands", "on=pb220a, pd=0.9, seed=1", "k=3, on=" + ",".join(SILC_KEYS),
                       "on=eqIncome,hy090n, noise=10, seed=1"],
        "suppressed": [0, 0, None, 0],
    })
    rep = sdc.report(df, masked, on=SILC_KEYS, numeric=["eqIncome", "hy090n"], weight="rb050", steps=steps,
                     title="EU-SILC release")
    return df, masked, rep


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"-?\d[\d,]*\.?\d*", text)]


def test_verdict_numbers_match_risk_and_counts(silc):
    df, masked, rep = silc
    before = df.sdc.risk(SILC_KEYS, weight="rb050", suda=False)
    after = masked.sdc.risk(SILC_KEYS, weight="rb050", suda=False)
    f = rep.facts
    assert f["k_after"] == after["k_anonymity"] == masked.sdc.k_anonymity(SILC_KEYS) >= 3
    assert f["expected_before"] == pytest.approx(before["expected_reidentifications"], rel=1e-12)
    assert f["expected_after"] == pytest.approx(after["expected_reidentifications"], rel=1e-12)
    assert f["global_risk_after_pct"] == pytest.approx(100 * after["global_risk"], rel=1e-12)
    supp = changed_cat = changed_num = 0
    for c in df.columns:
        s, ch = reference_value_changes(df[c].to_list(), masked[c].to_list())
        if c == "rb050":
            continue
        supp += s
        if c in ("eqIncome", "hy090n"):
            changed_num += ch
        else:
            changed_cat += ch
    assert (f["suppressed"], f["changed_categorical"], f["changed_numeric"]) == (supp, changed_cat, changed_num)
    assert f["sse_sst_pct"] == pytest.approx(100 * df.sdc.ilssdm(["eqIncome", "hy090n"], masked=masked), rel=1e-12)
    # the sentence says exactly these numbers, rounded for people
    v = rep.verdict
    assert v.startswith("After 4 steps (recode, pram, suppress, add_noise): 3-anonymous on 6 keys with missing values as wildcards")
    m = re.search(r"expected re-identifications ([\d.]+) -> ([\d.]+) \(global risk ([\d.]+) % -> ([\d.]+) %\)", v)
    assert float(m.group(1)) == pytest.approx(before["expected_reidentifications"], rel=5e-3)
    assert float(m.group(1)) == 57.5  # sdcMicro's measure_risk on EU-SILC with these keys: 57.49
    assert float(m.group(2)) == pytest.approx(after["expected_reidentifications"], rel=5e-3)
    assert float(m.group(3)) == pytest.approx(100 * before["global_risk"], rel=5e-3)
    assert float(m.group(4)) == pytest.approx(100 * after["global_risk"], rel=5e-3)
    n_age = reference_value_changes(df["age"].to_list(), masked["age"].to_list())[1]
    n_pb = reference_value_changes(df["pb220a"].to_list(), masked["pb220a"].to_list())[1]
    assert (f"{supp:,} values suppressed, {changed_cat:,} values changed in keys/categorical variables "
            f"(age {n_age:,}, pb220a {n_pb:,})") in v  # the recoding and the PRAM
    assert f"{changed_num:,} values changed in numeric variables" in v
    sse = float(re.search(r"numeric SSE/SST ([\d.]+) %", v).group(1))
    assert sse == pytest.approx(f["sse_sst_pct"], rel=5e-3)


def test_per_variable_counts(silc):
    df, masked, rep = silc
    t = rep.table("variables")
    for c, s, ch in t.select("variable", "suppressed", "changed").iter_rows():
        assert (s, ch) == reference_value_changes(df[c].to_list(), masked[c].to_list()), c
    assert set(SILC_KEYS) <= set(t["variable"]) and "rb050" in t["variable"].to_list()
    assert dict(zip(t["variable"], t["role"]))["eqIncome"] == "numeric"
    # a value can be both: dtype change compared as text, NaN == NaN, nulls kept apart
    o = pl.DataFrame({"x": [1.0, float("nan"), None, 2.0]})
    assert value_changes(o, pl.DataFrame({"x": [1.0, float("nan"), 3.0, None]}), "x") == {
        "missing_before": 1, "missing_after": 1, "suppressed": 1, "changed": 0, "filled": 1}
    assert value_changes(pl.DataFrame({"a": [1, 25]}), pl.DataFrame({"a": ["1", "[20,30)"]}), "a")["changed"] == 1


def test_risk_table_is_labelled_with_units_thresholds_and_reasons(silc, release):
    for _, _, rep in (silc, release):
        t = rep.table("risk")
        assert not [m for m in t["measure"] if re.search(r"\b[a-z]+_[a-z_]+\b", m)]  # no snake_case
        assert t["meaning"].str.len_chars().min() > 15 and t["what matters"].null_count() == 0
        missing = t.filter(pl.col("before").is_null() | pl.col("after").is_null())
        assert missing["why no value"].null_count() == 0
        assert "nan" not in repr(rep).lower().replace("meaning", "")
    df, masked, rep = silc
    t = rep.table("risk")
    row = {m: (b, a, u) for m, b, a, u in t.select("measure", "before", "after", "unit").iter_rows()}
    after = rep.risk_after
    assert row["Global risk (mean individual risk)"] == pytest.approx((100 * rep.risk_before["global_risk"],
                                                                       100 * after["global_risk"], "%"))
    assert row["Smallest class size (k-anonymity)"][:2] == (1, after["k_anonymity"])
    assert row["Records with individual risk above 10 %"][1] == int((after.per_record["risk"] > 0.1).sum())
    # EU-SILC's sampling fraction is < 10 %: Dankar's rule uses Pitman, SNB is not estimated -> a reason
    snb = t.filter(pl.col("measure") == "Population uniques, SNB estimate")
    assert snb["before"][0] is None and "sampling fraction" in snb["why no value"][0]
    # without weights the population estimates say why they are missing
    _, _, small = release
    pop = small.table("risk").filter(pl.col("measure").str.starts_with("Population uniques (share"))
    assert pop["before"][0] is None and "weights" in pop["why no value"][0]


def test_categorical_utility(silc):
    df, masked, rep = silc
    # frequency table of a key against a plain count
    t = rep.table("freq-db040")
    want_b = df["db040"].value_counts()
    for cat, nb, na, rel in t.select("category", "n before", "n after", "relative change of share (%)").iter_rows():
        assert nb == want_b.filter(pl.col("db040") == cat)["count"].item()
        assert na == masked.filter(pl.col("db040") == cat).height
        sb, sa = nb / df["db040"].count(), na / masked["db040"].count()
        assert rel == pytest.approx(100 * (sa - sb) / sb, rel=1e-12)
    summary = rep.table("categorical")
    row = summary.filter(pl.col("variable") == "db040").row(0, named=True)
    assert abs(row["largest relative change of a share (%)"]) == pytest.approx(t["relative change of share (%)"].abs().max())
    age = summary.filter(pl.col("variable") == "age").row(0, named=True)
    assert age["categories before"] > age["categories after"]  # 5-year bands
    # Cramér's V of every key pair, before and after, from the association module
    from polars_sdc.utility.association import cramers_v_pair

    assoc = rep.table("association")
    assert assoc.height == 15
    first = assoc.row(0, named=True)
    assert first["pair"] == "db040 × age"
    assert first["Cramér's V before"] == pytest.approx(cramers_v_pair(df, "db040", "age"), rel=1e-12)
    assert first["Cramér's V after"] == pytest.approx(cramers_v_pair(masked, "db040", "age"), rel=1e-12)
    # a category that is new after recoding has no relative change (not inf)
    fc = frequency_change(pl.DataFrame({"a": [1, 2, 2]}), pl.DataFrame({"a": ["1", "2", "[2,3)"]}), "a")
    assert fc.filter(pl.col("category") == "[2,3)")["relative change of share (%)"][0] is None


def test_plots_are_labelled_and_suda_sums_to_100(silc, release):
    for _, _, rep in (silc, release):
        assert sorted(rep.plots) == ["distribution", "losses", "ru-map", "suda"]
        assert rep.figure_problems == {"distribution": [], "losses": [], "ru-map": [], "suda": []}
        assert all(p[:8] == b"\x89PNG\r\n\x1a\n" for p in rep.plots.values())
        for res in (rep.risk_before, rep.risk_after):
            shares = suda_shares(res)
            assert shares.sum() == pytest.approx(100.0) or (res["records_with_msu"] == 0 and shares.sum() == 0)
    _, _, rep = silc
    raw = rep.risk_before.suda.attribute_contributions()["contribution"].sum()
    assert raw > 150  # sdcMicro's per-key percentages count an MSU once per key it holds


def test_text_and_notebook_views(silc):
    _, _, rep = silc
    text = repr(rep)
    lines = text.splitlines()
    assert lines[0] == "EU-SILC release" and lines[3] == "Verdict: " + rep.verdict
    for heading in ("Steps applied", "Values suppressed and changed, per variable",
                    "Disclosure risk on the keys, before and after", "Categorical utility",
                    "Association between key pairs (Cramér's V)"):
        assert heading in text
    assert "on=pb220a, pd=0.9, seed=1" in text and "Pitman" in text and "no value:" in text
    html = rep._repr_html_()
    assert html.count("<img class='plot'") == 4
    for sid in ("summary", "steps", "variables", "risk", "numeric", "utility", "categorical", "frequencies",
                "association", "distribution", "suda", "losses", "ru-map"):
        assert f"<section id='{sid}'>" in html, sid
    assert "0.00387" not in html and "0.388 %" in html  # percent, one convention
    # in a notebook: a fragment whose styles touch only the report, not the notebook's page
    assert not html.lstrip().startswith("<!DOCTYPE") and "<body" not in html
    css = html[html.index("<style>") + 7: html.index("</style>")]
    assert all(rule.strip().startswith(".sdc-report") for rule in re.findall(r"(?:^|})([^{}]+){", css))
    assert rep.to_html().startswith("<!DOCTYPE html>") and html in rep.to_html()


def test_losses_plot_and_further_categorical_columns(release):
    """The bars of "What each variable lost" are the variables table's shares; ``categorical=``
    adds a column's counts, frequency table and role, and refuses an unknown column."""
    import matplotlib.pyplot as plt

    from polars_sdc.risk import report as mod

    df, masked, _ = release
    m = masked.sdc.pram("disease", pd=0.7, seed=2)
    rep = sdc.report(df, m, on=["age", "sex", "region"], categorical="disease")
    v = rep.table("variables")
    assert v.filter(pl.col("variable") == "disease").select("role", "changed").row(0) == (
        "categorical", reference_value_changes(df["disease"].to_list(), m["disease"].to_list())[1])
    assert rep.table("freq-disease")["n after"].sum() == df.height and "disease" in rep.table("categorical")["variable"]
    seen = {}
    real = mod._png
    mod._png = lambda fig: seen.setdefault("ax", fig.axes[0]) and real(fig)
    try:
        lost = v.filter(~pl.col("role").is_in(["weight", "household", "other"]) & ((pl.col("suppressed") + pl.col("changed")) > 0))
        mod._plot_variables(lost)
    finally:
        mod._png = real
    bars = seen["ax"].patches
    widths = [b.get_width() for b in bars]
    half = len(widths) // 2
    total = [a + b for a, b in zip(widths[:half], widths[half:])]
    assert total == pytest.approx(lost["% of values suppressed or changed"].to_list())
    plt.close("all")
    assert "losses" in rep.plots and rep.figure_problems["losses"] == []
    with pytest.raises(SDCError, match="nope"):
        sdc.report(df, m, on=["age"], categorical="nope")


def test_report_dollar_labels_and_steps_errors(release):
    df, masked, _ = release
    d = df.rename({"region": "cost $ band", "sex": "$sex"})
    m = masked.rename({"region": "cost $ band", "sex": "$sex"})
    rep = sdc.report(d, m, on=["age", "$sex", "cost $ band"])  # no mathtext error, the labels stay literal
    assert rep.figure_problems["suda"] == [] and "cost $ band" in repr(rep)
    with pytest.raises(SDCError, match="parameters"):
        sdc.report(df, masked, on=["age"], steps=pl.DataFrame({"step": ["x"]}))
    with pytest.raises(SDCError, match="'step' must be text"):
        sdc.report(df, masked, on=["age"], steps=pl.DataFrame({"step": [1], "parameters": ["k=3"]}))
    with pytest.raises(SDCError, match="threshold"):
        sdc.report(df, masked, on=["age"], threshold=2)


def test_report_content(release):
    df, masked, rep = release
    risk = rep.table("risk")
    row = dict(zip(risk["measure"], risk["after"]))
    before = dict(zip(risk["measure"], risk["before"]))
    g = masked.sdc.global_risk(["age", "sex", "region"])["global_risk"]
    assert row["Global risk (mean individual risk)"] == pytest.approx(100 * g)
    assert row["Global risk (mean individual risk)"] < before["Global risk (mean individual risk)"]
    num = dict(zip(rep.table("numeric")["measure"], rep.table("numeric")["value"]))
    assert num["Record linkage"] == pytest.approx(100 * df.sdc.linkage_risk(masked, ["income", "hours"]))
    ru = rep.table("ru-map")
    assert ru["k"].to_list() == [3, 5, 10]
    assert (np.diff(ru["SSE/SST (%)"].to_numpy()) > 0).all()  # more loss as k grows
    sens = rep.table("sensitive")
    assert sens["release"].to_list() == ["before", "after"]
    assert rep.facts["l_after"] == float(masked.sdc.l_diversity(["age", "sex", "region"], "disease")["l_diversity"].min())
    assert "disease: l-diversity" in rep.verdict
    k = masked.sdc.k_anonymity(["age", "sex", "region"])
    below = int((masked.sdc.frequencies(["age", "sex", "region"])["fk"] < 3).sum())
    assert k < 3 and rep.verdict.startswith(
        f"NOT 3-anonymous on 3 keys: {below:,} records in classes smaller than 3 (smallest class {k})")


def test_report_bad_input(release):
    df, masked, _ = release
    with pytest.raises(SDCError, match="rows"):
        sdc.report(df, masked.head(10), on=["age"])
    with pytest.raises(SDCError, match="'disease'"):
        sdc.report(df, masked, on=["age", "disease"], sensitive="disease")
    with pytest.raises(SDCError, match="'nope'"):
        sdc.report(df, masked, on=["nope"])
    rep = sdc.report(df.lazy(), masked.lazy(), on=["age", "sex"])  # no numeric columns: note, no R-U map
    assert "ru-map" not in rep.plots and rep.notes and "numeric" not in rep.verdict


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if REQUIRE_ALL:
        pytest.fail("chromium is not installed and SDC_REQUIRE_ALL=1")
    pytest.skip("chromium is not installed (apt-get install chromium); set SDC_REQUIRE_ALL=1 to make this a failure")


def _shot(browser, flags, page, out, size):
    res = subprocess.run([browser, *flags, f"--screenshot={out}", f"--window-size={size}", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert res.returncode == 0 and out.exists(), res.stderr[-2000:]
    import matplotlib.image as mpimg

    return mpimg.imread(out)[..., :3]


def test_eusilc_report_renders_in_headless_chromium(silc, tmp_path):
    browser = _chromium()
    _, _, rep = silc
    page = rep.save(tmp_path / "release_report.html")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for section in ("summary", "steps", "variables", "risk", "numeric", "utility", "categorical", "frequencies",
                    "association", "ru-map", "suda", "distribution"):
        assert f'id="{section}"' in dom.stdout, section
    assert rep.verdict.split(":")[0] in dom.stdout
    imgs = re.findall(r'<img class="plot" alt="([^"]+)" src="data:image/png;base64,([^"]+)"', dom.stdout)
    assert sorted(a for a, _ in imgs) == ["distribution", "losses", "ru-map", "suda"]
    img = _shot(browser, flags, page, tmp_path / "shot.png", "1200,2400")
    assert img.shape[0] > 100 and img.std() > 0.02  # the page is not blank
    # every figure, as the browser draws it (each on a page of its own): non-blank pixels in the plot
    for alt, data in imgs:
        one = tmp_path / f"{alt}.html"
        one.write_text(f"<html><body style='margin:0;background:#fff'><img src='data:image/png;base64,{data}'></body></html>")
        px = _shot(browser, flags, one, tmp_path / f"{alt}.png", "800,600")
        dark = px.sum(axis=-1) < 1.5
        coloured = px.std(axis=-1) > 0.1  # red / blue series, not grey
        assert dark.sum() > 2000 and coloured.sum() > 500, (alt, dark.sum(), coloured.sum())  # text/axes and coloured series drawn
        assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    # and every figure had its axes labelled and a title (polars_sdc.plot.unlabelled_axes)
    assert all(p == [] for p in rep.figure_problems.values()) and len(rep.figure_problems) == 4


def test_a_problem_log_is_read_as_given(tmp_path):
    """The process object's log (integer ``step``, ``operation``, JSON ``parameters``, effects,
    per-variable List[Struct], fractions): shown with plain names and percent, the original row
    as the start of the risk–utility path, and a note when its numbers disagree with the data."""
    import json

    df = pl.DataFrame({"a": ["x", "x", "x", "y", "y", "z"] * 3 + ["q"], "b": ["u", "u", "v", "v", "v", "v"] * 3 + ["u"]})
    m = df.sdc.suppress(2, ["a", "b"])
    r0, r1 = df.sdc.risk(["a", "b"], suda=False), m.sdc.risk(["a", "b"], suda=False)
    by = pl.List(pl.Struct({"variable": pl.String, "suppressed": pl.Int64, "changed": pl.Int64}))
    schema = {"step": pl.UInt32, "operation": pl.String, "parameters": pl.String, "suppressed": pl.Int64,
              "changed": pl.Int64, "by_variable": by, "expected_reidentifications": pl.Float64,
              "global_risk": pl.Float64}

    def log(last_risk):
        return pl.DataFrame([
            {"step": 0, "operation": "original", "parameters": "{}", "suppressed": 0, "changed": 0, "by_variable": [],
             "expected_reidentifications": r0["expected_reidentifications"], "global_risk": r0["global_risk"]},
            {"step": 1, "operation": "suppress", "parameters": json.dumps({"k": 2, "on": ["a", "b"]}),
             "suppressed": 1, "changed": 0, "by_variable": [{"variable": "a", "suppressed": 1, "changed": 0}],
             "expected_reidentifications": last_risk, "global_risk": r1["global_risk"]},
        ], schema=schema)

    rep = sdc.report(df, m, on=["a", "b"], steps=log(r1["expected_reidentifications"]))
    steps = rep.table("steps")
    assert steps.row(0, named=True) == {
        "#": 1, "step": "suppress", "parameters": "k=2, on=a,b", "suppressed": 1, "changed": 0,
        "per variable (suppressed / changed)": "a 1 / 0", "expected re-identifications": r1["expected_reidentifications"],
        "global risk (%)": 100 * r1["global_risk"]}
    assert rep.verdict.startswith("After 1 step (suppress): 3-anonymous on 2 keys") and "1 value suppressed" in rep.verdict
    assert "steps-map" in rep.plots and rep.figure_problems["steps-map"] == []
    assert not [n for n in rep.notes if "the log" in n]
    wrong = sdc.report(df, m, on=["a", "b"], steps=log(9.5))
    assert [n for n in wrong.notes if n.startswith("the log's last step records 9.50 expected re-identifications")]


def test_numeric_columns_with_structural_nulls(silc):
    """EU-SILC's person incomes are null for children: the records complete in both frames give
    SSE/SST, record linkage and the R-U map; means use each column's values; a note says so."""
    df, _, _ = silc
    nums = ["py010n", "py050n"]
    masked = df.with_columns(pl.col(c) * 1.01 for c in nums)
    rep = sdc.report(df, masked, on=["db040", "rb090"], numeric=nums, ks=(3,))
    ok = df.select(pl.all_horizontal(pl.col(c).is_not_null() for c in nums)).to_series()
    oc, mc = df.filter(ok), masked.filter(ok)
    assert rep.facts["sse_sst_pct"] == pytest.approx(100 * oc.sdc.ilssdm(nums, masked=mc.select(nums)), rel=1e-12)
    num = dict(zip(rep.table("numeric")["measure"], rep.table("numeric")["value"]))
    assert num["Record linkage"] == pytest.approx(100 * oc.sdc.linkage_risk(mc, nums))
    assert num["Largest relative change of a mean"] == pytest.approx(1.0)  # x 1.01 on every value present
    skipped = df.height - int(ok.sum())
    assert skipped == 2720 and [n for n in rep.notes if n.startswith(f"numeric: {skipped:,} of 14,827 records")]
    assert "ru-map" in rep.plots


def test_report_html_with_dollar_key_names():
    """A `$` in a key column's name is a label, not mathtext: the HTML report and its SUDA plot
    (which names the keys) render."""
    from polars_sdc.risk.report import report

    r = np.random.default_rng(0)
    df = pl.DataFrame({"$x^$": r.integers(0, 12, 60), "b": r.integers(0, 12, 60), "v": r.normal(size=60)})
    html = report(df, df, on=["$x^$", "b"]).to_html()
    assert "SUDA" in html and html.count("data:image/png") >= 2  # the SUDA plot names the keys
