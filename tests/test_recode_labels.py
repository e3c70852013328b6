"""Names of recoded categories (issue 16): the ASCII separator, ``max_label=``, ``other=`` and
``null_values=`` of ``df.sdc.recode`` / ``recode_map`` / ``recode_utility``; properties against
the plain Fig. 1 of tests/naive.py and adversarial category values."""
import inspect
import re
import time

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from naive import reference_fig1
from polars_sdc import SDCError, datasets
from polars_sdc.recode import DEFAULT_MAX_LABEL, DEFAULT_SEP, LabelSpec, merge_plan, recode_series

# category texts that stress the labels: the separator inside values, empty strings, unicode
# (CJK, combining marks, emoji, right-to-left), whitespace, the ellipsis itself
TEXTS = st.lists(st.sampled_from(list("ab|・ …().+") + ["é", "e\u0301", "農", "🙂", "ש", "\t", "...(+1 more)"]),
                 max_size=8).map("".join)


def _groups(new: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, lab in enumerate(new):
        out.setdefault(lab, []).append(i)
    return out


def _check_label(label: str, parts: list[str], sep: str, cap: int | None) -> None:
    """A merged label is the full join if it fits, else the first whole parts (as many as fit)
    then ``...(+N more)``, or the first part cut; never longer than the cap."""
    full = sep.join(parts)
    if cap is None or len(full) <= cap:
        assert label == full
        return
    assert len(label) <= cap
    m = re.search(r"\.\.\.\(\+(\d+) more\)$", label)
    assert m, label
    n_more, shown = int(m.group(1)), label[: m.start()]
    k = len(parts) - n_more
    # (a category may itself end in "...(+1 more)": accept either reading of the tail)
    whole = k >= 1 and shown == sep.join(parts[:k]) + sep and (  # as many whole parts as fit
        k + 1 == len(parts) or len(sep.join(parts[: k + 1]) + sep + f"...(+{n_more - 1} more)") > cap)
    first_fits = len(parts[0] + sep + f"...(+{len(parts) - 1} more)") <= cap
    cut = n_more == len(parts) - 1 and parts[0].startswith(shown) and not first_fits and (
        len(label) == cap or shown == parts[0])  # cut to fill the cap, or whole without its separator
    assert whole or cut, (label, parts)


# -- properties -------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(st.tuples(TEXTS, st.integers(1, 9)), min_size=1, max_size=40, unique_by=lambda t: t[0]),
    th=st.integers(0, 40),
    sep=st.sampled_from(["|", "・", " | ", "||"]),
    cap=st.one_of(st.none(), st.integers(24, 60)),
)
def test_property_every_merged_label_is_capped_and_names_its_parts(data, th, sep, cap):
    labels, counts = [t for t, _ in data], [c for _, c in data]
    try:
        new = merge_plan(labels, counts, th, sep=sep, max_label=cap, column="c")
    except SDCError as exc:  # a label that collides with a category or another label
        assert str(exc).startswith("column 'c': ") and ("both named" in str(exc) or "existing category" in str(exc))
        return
    groups = reference_fig1(counts, th)
    assert sorted(_groups(new).values()) == groups  # labels stay distinct: one per Fig. 1 group
    for g in groups:
        if len(g) == 1:
            assert new[g[0]] == labels[g[0]]  # an unmerged category keeps its own name
        else:
            _check_label(new[g[0]], [labels[i] for i in g], sep, cap)


@settings(max_examples=100, deadline=None)
@given(counts=st.lists(st.integers(1, 9), min_size=1, max_size=40), th=st.integers(0, 40))
def test_property_other_pools_every_merged_group(counts, th):
    labels = [f"v{i}" for i in range(len(counts))]
    new = merge_plan(labels, counts, th, other="Other")
    merged = [i for g in reference_fig1(counts, th) if len(g) > 1 for i in g]
    assert [i for i, lab in enumerate(new) if lab == "Other"] == sorted(merged)
    assert all(new[i] == labels[i] for i in range(len(labels)) if i not in merged)
    pooled = sum(counts[i] for i in merged)
    assert not merged or pooled > th or len(set(new)) == 1  # the pool exceeds th like its groups


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "?", "", "c|d", "n/a", "農", "🙂"])),
                    min_size=1, max_size=60),
    p=st.integers(300, 4000).map(lambda i: i / 10_000),
    dtype=st.sampled_from(["String", "Categorical", "Enum"]),
    options=st.sampled_from([{}, {"other": "Other"}, {"max_label": 24}, {"null_values": ["?", "n/a"]},
                             {"null_values": "?", "other": "ZZ", "sep": "・"}]),
)
def test_property_map_round_trips_and_nulls(values, p, dtype, options):
    """recode_map covers every observed value and, applied to the input, gives the recoded
    column; nulls stay null, ``null_values`` become null, every other row keeps a value."""
    s = pl.Series("c", values, dtype=pl.String)
    if dtype == "Categorical":
        s = s.cast(pl.Categorical)
    elif dtype == "Enum":
        s = s.cast(pl.Enum(sorted(set(v for v in values if v is not None)) + ["never-seen"]))
    df = pl.DataFrame({"c": s, "row": range(len(values))})
    try:
        out = df.sdc.recode("c", p, **options)
        table = df.sdc.recode_map("c", p, **options)
    except SDCError as exc:  # only a label collision may stop a valid call
        assert "column 'c'" in str(exc)
        return
    assert out["row"].equals(df["row"]) and df["c"].to_list() == s.to_list()
    seen = [v for v in dict.fromkeys(values) if v is not None]
    assert sorted(table["original"].to_list()) == sorted(seen)
    mapping = dict(zip(table["original"].to_list(), table["recoded"].to_list()))
    got = out["c"].cast(pl.String).to_list()
    assert got == [None if v is None else mapping[v] for v in values]
    missing = set(options.get("null_values") or [])
    missing = {missing} if isinstance(missing, str) else missing
    assert [g is None for g in got] == [v is None or v in missing for v in values]
    counted = table.filter(pl.col("recoded").is_not_null())
    if counted.height:  # recoded_count is the rows of the new category
        check = counted.group_by("recoded").agg(pl.col("count").sum(), pl.col("recoded_count").first())
        assert check["count"].to_list() == check["recoded_count"].to_list()
    assert table.filter(pl.col("recoded").is_null())["recoded_count"].null_count() == table.height - counted.height


# -- the options on real data -----------------------------------------------------------------
def test_defaults_are_ascii_and_shared_by_every_entry_point():
    """The label options are declared once (LabelOptions; defaults in recode_table and
    LabelSpec): every module entry point forwards them, every namespace method shows them as
    parameters with those defaults, so all give the same "|" labels."""
    from polars_sdc import spark as sdcs
    from polars_sdc._typing import LabelOptions
    from polars_sdc.namespace.expr import SDCExpr
    from polars_sdc.namespace.recode import RecodeMethods
    from polars_sdc.recode import LABEL_OPTIONS, LabelSpec, recode_table
    from polars_sdc.utility import recode_utility

    assert DEFAULT_SEP == "|" and DEFAULT_SEP.isascii() and DEFAULT_MAX_LABEL == 200
    assert set(LabelOptions.__annotations__) == set(LABEL_OPTIONS)
    assert LabelSpec() == LabelSpec.build()
    params = inspect.signature(recode_table).parameters
    assert params["sep"].default == DEFAULT_SEP and params["max_label"].default == DEFAULT_MAX_LABEL
    assert params["other"].default is None and params["null_values"].default is None
    for fn in (recode_utility, sdcs.recode_map, polars_sdc.recode.recode_frame, recode_series):
        kwargs = [q for q in inspect.signature(fn).parameters.values() if q.kind is q.VAR_KEYWORD]
        assert len(kwargs) == 1 and "LabelOptions" in str(kwargs[0].annotation), fn
    for fn in (RecodeMethods.recode, RecodeMethods.recode_map, RecodeMethods.recode_utility, SDCExpr.recode):
        shown = inspect.signature(fn).parameters
        assert {n: shown[n].default for n in LABEL_OPTIONS} == {n: params[n].default for n in LABEL_OPTIONS}, fn
    df = pl.DataFrame({"c": ["x", "y", "x", "z"]})
    want = ["x", "y|z", "x", "y|z"]
    assert df.sdc.recode("c", 0.3)["c"].to_list() == want
    assert df.lazy().sdc.recode("c", 0.3).collect()["c"].to_list() == want
    assert df.select(pl.col("c").sdc.recode(0.3))["c"].to_list() == want
    assert df.sdc.recode_map("c", 0.3)["recoded"].to_list() == ["x", "y|z", "y|z"]
    with pytest.raises(SDCError, match=r"recode\(\) got an unexpected keyword argument 'seperator'"):
        df.lazy().sdc.recode("c", 0.3, seperator="/")


def test_adult_question_mark_as_missing_and_other():
    raw = datasets.adult(missing="?")
    merged = raw.sdc.recode("native-country", p=0.05)["native-country"]
    assert merged.null_count() == 0 and merged.n_unique() == 2
    assert any("|?|" in lab for lab in merged.unique().to_list())  # "?" merged as if it were a country
    out = raw.sdc.recode("native-country", p=0.05, null_values=["?"], other="Other")["native-country"]
    assert out.value_counts(sort=True).rows() == [("United-States", 29170), ("Other", 2808), (None, 583)]
    # the same as the embedded data, where "?" already is null
    nulls = datasets.adult().sdc.recode("native-country", p=0.05, other="Other")["native-country"]
    assert out.to_list() == nulls.cast(pl.String).to_list()
    capped = raw.sdc.recode_map("native-country", p=0.05, max_label=40)
    assert capped["recoded"].str.len_chars().max() == len("Cuba|Jamaica|India|?|...(+37 more)") <= 40
    uncapped = raw.sdc.recode_map("native-country", p=0.05, max_label=None)
    label = uncapped.filter(pl.col("recoded_count") < 10_000)["recoded"][0]
    parts = uncapped.filter(pl.col("recoded") == label)["original"].to_list()
    assert len(parts) == 41 and label.split("|") == parts  # every part, in position order


def test_recode_utility_reads_null_values_as_missing():
    raw = datasets.adult(missing="?").head(4000)
    cols = ["occupation", "workclass", "native-country"]
    base = raw.with_columns(pl.col(cols).replace("?", None))  # the same String columns, "?" as null
    kw = dict(target="occupation", inputs=["workclass", "native-country"], p=0.02)
    assert raw.sdc.recode_utility(**kw, null_values=["?"]) == base.sdc.recode_utility(**kw)
    assert raw.sdc.recode_utility(**kw) != base.sdc.recode_utility(**kw)  # "?" a class and a category
    # p = 0.02 merges native-country into two groups: other= pools them, a coarser input
    from polars_sdc.utility import model_metrics

    data = base.select(cols).drop_nulls()
    groups = data.sdc.recode_map("native-country", 0.02).filter(pl.col("original") != pl.col("recoded"))
    assert groups["recoded"].n_unique() == 2
    pooled = data.with_columns(pl.col("native-country").replace(groups["original"].to_list(), "Z"))
    rec = pooled.sdc.recode("workclass", 0.02, other="Other")  # native-country: already pooled into Z
    want = (model_metrics(data, "occupation", kw["inputs"])["recall"]
            - model_metrics(rec, "occupation", kw["inputs"])["recall"])
    assert base.sdc.recode_utility(**kw, other="Other") == pytest.approx(want, abs=1e-12)
    assert want != pytest.approx(base.sdc.recode_utility(**kw), abs=1e-6)
    # p = 0.05: one merged group per input, so naming it "Other" changes nothing
    kw["p"] = 0.05
    assert base.sdc.recode_utility(**kw, other="Other") == base.sdc.recode_utility(**kw)


def test_enum_lazy_streaming_and_expression_agree():
    df = pl.DataFrame({"c": ["a"] * 20 + ["b", "c", "?", "?", "d", None]})
    opts = dict(p=0.1, null_values=["?"], other="Other")
    eager = df.sdc.recode("c", **opts)
    assert eager["c"].to_list() == ["a"] * 20 + ["Other"] * 2 + [None, None, "Other", None]
    lazy = df.lazy().sdc.recode("c", **opts)
    assert lazy.collect_schema() == eager.schema and lazy.collect(engine="streaming").equals(eager)
    assert df.select(pl.col("c").sdc.recode(**opts)).equals(eager)
    enum = df.with_columns(pl.col("c").cast(pl.Enum(["?", "a", "b", "c", "d"])))
    out = enum.sdc.recode("c", **opts)
    assert out.schema["c"] == pl.Enum(["a", "Other"]) and out["c"].cast(pl.String).equals(eager["c"])


# -- adversarial --------------------------------------------------------------------------------
def test_separator_inside_categories_empty_strings_and_unicode():
    df = pl.DataFrame({"c": ["x|y"] * 1 + [""] * 1 + ["🙂"] * 1 + ["農業"] * 1 + ["z"] * 96})
    # th = 3: the four singletons tie and merge at once
    assert df.sdc.recode("c", p=0.03)["c"].unique(maintain_order=True).to_list() == ["x|y||🙂|農業", "z"]
    assert df.sdc.recode("c", p=0.03, sep="・")["c"][0] == "x|y・・🙂・農業"
    # a merged label that is already a category: a one-line error naming the column and the cure
    clash = pl.DataFrame({"c": ["a", "b"] + ["a|b"] * 30})
    with pytest.raises(SDCError, match=r"^column 'c': .*'a\|b'.*sep="):
        clash.sdc.recode("c", p=0.05)
    assert clash.sdc.recode("c", p=0.05, sep=" + ")["c"][0] == "a + b"
    # other= equal to an existing, unmerged category; fine when that category is itself merged
    other = pl.DataFrame({"c": ["a", "b"] + ["Other"] * 30})
    with pytest.raises(SDCError, match="^column 'c': other='Other' is already a category"):
        other.sdc.recode("c", p=0.05, other="Other")
    small = pl.DataFrame({"c": ["a", "Other"] + ["z"] * 30})
    assert small.sdc.recode("c", p=0.05, other="Other")["c"].head(2).to_list() == ["Other", "Other"]


def test_truncated_labels_that_collide_are_an_error():
    # two merged groups whose first parts share the first 12 characters: cut to the same label
    long = ["p" * 30 + "1", "q", "p" * 30 + "2", "r"]
    with pytest.raises(SDCError, match="both named.*max_label="):
        merge_plan(long, [3, 3, 4, 4], 4, max_label=24, column="c")
    assert merge_plan(long, [3, 3, 4, 4], 4, max_label=None) == [long[0] + "|q"] * 2 + [long[2] + "|r"] * 2


def test_hundred_thousand_distinct_values():
    n = 100_000
    df = pl.DataFrame({"c": [f"value-{i}" for i in range(n)] + ["?"] * 10})
    t0 = time.process_time()
    out = df.sdc.recode("c", p=0.001, max_label=32, null_values="?")
    table = df.sdc.recode_map("c", p=0.001, max_label=32, null_values="?")
    assert time.process_time() - t0 < 30
    labels = out["c"].drop_nulls().unique()
    assert labels.len() == 1 and labels.str.len_chars().max() <= 32 and out["c"].null_count() == 10
    assert labels[0] == f"value-0|value-1|...(+{n - 2} more)"
    assert table.height == n + 1 and table["recoded"].null_count() == 1
    assert df.sdc.recode("c", p=0.001, other="Other")["c"].unique().to_list() == ["Other"]  # "?" too


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, message", [
    ({"sep": ""}, "sep (the separator of merged labels) must be a non-empty string"),
    ({"sep": 1}, "sep (the separator of merged labels) must be a non-empty string"),
    ({"other": ""}, "other (the label of merged groups) must be a non-empty string or None"),
    ({"other": 3}, "other (the label of merged groups) must be a non-empty string or None"),
    ({"max_label": 23}, "max_label must be >= 24"),
    ({"max_label": True}, "max_label must be an integer"),
    ({"max_label": 40.0}, "max_label must be an integer"),
    ({"null_values": 0}, "null_values must be a string or a list of strings"),
    ({"null_values": ["?", None]}, "null_values must be strings"),
])
def test_bad_options_fail_before_reading_data(kw, message):
    lf = pl.LazyFrame({"c": ["a", "b"]}).map_batches(lambda d: 1 / 0)  # any read would fail
    with pytest.raises(SDCError, match=re.escape(message)):
        lf.sdc.recode("c", p=0.3, **kw)
    with pytest.raises(SDCError, match=re.escape(message)):
        pl.DataFrame({"c": ["a", "b"], "t": ["u", "v"]}).sdc.recode_utility("t", "c", p=0.3, **kw)
    with pytest.raises(SDCError, match=re.escape(message)):
        pl.col("c").sdc.recode(p=0.3, **kw)


def test_other_refused_with_hierarchy_or_order():
    df = pl.DataFrame({"age": ["0-9", "10-19", "20-29"] * 5, "c": list("abcab") * 3})
    with pytest.raises(SDCError, match="^column 'age': other= pools .* ordinal order forbids"):
        df.lazy().sdc.recode(["age", "c"], p=0.3, other="Other", ordinal={"age": ["0-9", "10-19", "20-29"]})
    with pytest.raises(SDCError, match="^column 'c': other= pools .* hierarchy forbids"):
        df.sdc.recode_map(["c"], p=0.3, other="Other", hierarchy={"c": {"a": "X"}})
    with pytest.raises(SDCError, match="^column 'c': other= pools"):
        pl.col("c").sdc.recode(p=0.3, other="Other", ordinal=["a", "b", "c"])
    assert LabelSpec.build(other="Other").join(["only"]) == "only"
