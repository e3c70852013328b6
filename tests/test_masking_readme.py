"""docs/guide.md: the "Which method when" table (method | keeps | costs | use it when) names every masking method."""
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "docs" / "guide.md"
MASKING = ["mdav", "vmdav", "mhm", "univariate", "microaggregate", "mil", "aggregate", "recode", "recode_intervals",
           "top_bottom_code", "suppress", "suppress_risky", "pram", "rank_swap", "add_noise", "laplace"]


def test_the_masking_table_covers_every_masking_method():
    lines = README.read_text().splitlines()
    start = lines.index("| method | keeps | costs | use it when |")
    table = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        table.append(line.split("|")[1])
    named = " ".join(table)
    missing = [m for m in MASKING if not re.search(rf"`{m}[`(]", named)]   # `name` or `name(args)`
    assert not missing, f"docs/guide.md masking table lacks {missing}"
    for variant in ("additive", "correlated", "correlated2", "moments"):
        assert variant in named
    from polars_sdc.namespace import SDCFrame

    assert all(hasattr(SDCFrame, m) for m in MASKING)
