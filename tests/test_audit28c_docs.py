"""Audit 28c (a new user's walkthrough): prose numbers the doc harness cannot see.

The docs quoted Adult's local suppression as 2,908 / 4,037 values (k = 3 / 5) in five pages
after the record-by-record rounds had lowered it to 1,704 / 2,556 (docs/suppression.md had the
new table; masking.md, guide.md, implemented.md, speed.md and from-sdcmicro.md the old one).
The numbers sit in prose and tables, which tests/test_readme.py does not run, so this test
computes them and looks for them in every page that quotes them.
"""
from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import polars_sdc  # noqa: F401
from polars_sdc import datasets

DOCS = Path(__file__).resolve().parents[1] / "docs"
KEYS = ["workclass", "education", "marital-status", "race", "sex", "native-country"]
# the pages that quote Adult's suppression count, and which k they quote
PAGES = {"masking.md": (3, 5), "guide.md": (3,), "implemented.md": (3, 5), "speed.md": (3, 5),
         "from-sdcmicro.md": (3, 5), "suppression.md": (3, 5)}


@pytest.fixture(scope="module")
def counts() -> dict[int, int]:
    adult = datasets.adult(missing="?")        # "?" an ordinary category, as in the docs
    before = sum(adult.select(pl.col(KEYS).null_count()).row(0))
    return {k: sum(adult.sdc.suppress(k, KEYS).select(pl.col(KEYS).null_count()).row(0)) - before for k in (3, 5)}


def test_adult_suppression_counts_quoted_are_current(counts):
    stale = []
    for page, ks in PAGES.items():
        text = (DOCS / page).read_text()
        for k in ks:
            if f"{counts[k]:,}" not in text:
                stale.append(f"docs/{page}: Adult k = {k} suppresses {counts[k]:,} values now; not quoted")
    assert not stale, "\n".join(stale)


def test_no_page_quotes_the_old_counts(counts):
    """2,908 / 4,037 were the counts before the record-by-record rounds; only suppression.md's
    history sentence ("2,908 -> 1,704") may name them."""
    for page in sorted(DOCS.glob("*.md")):
        for line in page.read_text().splitlines():
            for old in ("2,908", "4,037"):
                if old in line and not re.search(rf"{old} -> {counts[3]:,}", line):
                    pytest.fail(f"docs/{page.name} quotes the old count {old}: {line.strip()[:120]}")
