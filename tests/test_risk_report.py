"""sdc.report: tables and plots, text and HTML views, saved page rendered in a real browser
(headless chromium: sections and plots present, screenshot not blank)."""
import os
import shutil
import subprocess

import numpy as np
import polars as pl
import pytest

import polars_sdc as sdc
from polars_sdc import SDCError

REQUIRE_ALL = os.environ.get("SDC_REQUIRE_ALL") == "1"


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


def test_report_content(release):
    df, masked, rep = release
    risk = rep.tables["risk: Risk on the keys before and after masking"]
    row = dict(zip(risk["measure"], risk["after"]))
    before = dict(zip(risk["measure"], risk["before"]))
    assert row["global_risk"] == pytest.approx(masked.sdc.global_risk(["age", "sex", "region"])["global_risk"])
    assert row["global_risk"] < before["global_risk"]  # recoding age lowered the risk
    num = rep.tables["numeric: Disclosure risk of the numeric columns"]
    assert num["value"][0] == pytest.approx(df.sdc.linkage_risk(masked, ["income", "hours"]))
    ru = rep.tables["ru-map: Risk–utility map points (mdav)"]
    assert ru["k"].to_list() == [3, 5, 10]
    assert (np.diff(ru["SSE/SST"].to_numpy()) > 0).all()  # more loss as k grows
    assert sorted(rep.plots) == ["distribution", "ru-map", "suda"]
    assert all(p[:8] == b"\x89PNG\r\n\x1a\n" for p in rep.plots.values())
    text = repr(rep)
    assert "Risk on the keys" in text and "SSE/SST" in text
    html = rep._repr_html_()
    assert html.count("<img class='plot'") == 3 and "<section id='risk'>" in html


def test_report_bad_input(release):
    df, masked, _ = release
    with pytest.raises(SDCError, match="rows"):
        sdc.report(df, masked.head(10), on=["age"])
    with pytest.raises(SDCError, match="'disease'"):
        sdc.report(df, masked, on=["age", "disease"], sensitive="disease")
    with pytest.raises(SDCError, match="'nope'"):
        sdc.report(df, masked, on=["nope"])
    rep = sdc.report(df.lazy(), masked.lazy(), on=["age", "sex"])  # no numeric columns: note, no R-U map
    assert "ru-map" not in rep.plots and rep.notes


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if REQUIRE_ALL:
        pytest.fail("chromium is not installed and SDC_REQUIRE_ALL=1")
    pytest.skip("chromium is not installed (apt-get install chromium); set SDC_REQUIRE_ALL=1 to make this a failure")


def test_report_renders_in_headless_chromium(release, tmp_path):
    browser = _chromium()
    _, _, rep = release
    page = rep.save(tmp_path / "release_report.html")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    for section in ("summary", "risk", "numeric", "utility", "sensitive", "ru-map", "suda", "distribution"):
        assert f'id="{section}"' in dom.stdout, section
    assert dom.stdout.count('class="plot"') == 3
    shot = tmp_path / "shot.png"
    res = subprocess.run([browser, *flags, f"--screenshot={shot}", "--window-size=1200,2400", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and shot.exists(), res.stderr[-2000:]
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[0] > 100 and img[..., :3].std() > 0.02  # not a blank page
    # the plot region is not blank either: some pixels far from white
    assert (img[..., :3].sum(axis=-1) < 1.5).mean() > 0.001
