"""Small embedded data sets and the thesis's synthetic generators.

- :func:`census`: the CASC "Census" microaggregation benchmark (1080 x 13).
- :func:`adult`: UCI Adult ("Census Income"), 32,561 x 15.
- :func:`arx_adult`: ARX's Adult set (30,162 x 9) with its nine generalisation hierarchies.
- :func:`eusilc`: sdcMicro's EU-SILC household-survey tutorial data, 14,827 persons in 6,000
  households.
- :func:`francdat`: sdcMicro's 8-record worked example of disclosure-risk measures (and its
  variant with three key values missing).
- :func:`synthetic`: the one-dimensional data sets DS0-DS12 of the thesis (the thesis,
  Table A.1), generated from a seed.

The two real data sets ship as zstd-compressed parquet files inside this package; they were
made from ``../shared/data/{census,adult}.csv`` by :mod:`polars_sdc.datasets._build`
(``python -m polars_sdc.datasets._build``; EU-SILC from ``eusilc.csv``), which documents every conversion. Nothing here
reads outside the package at run time. Every call returns a fresh DataFrame.

>>> from polars_sdc import datasets
>>> datasets.census().shape
(1080, 13)
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import polars as pl

from .._signature import check_keywords

__all__ = ["census", "adult", "arx_adult", "eusilc", "francdat", "synthetic", "ds", "SyntheticSpec", "SYNTHETIC"]


def _read(name: str) -> pl.DataFrame:
    with resources.as_file(resources.files(__name__) / f"{name}.parquet") as path:
        return pl.read_parquet(path)


@check_keywords
def census() -> pl.DataFrame:
    """The "Census" benchmark of the CASC project: 1080 records x 13 numeric variables
    (Int64) from the US Current Population Survey: AFNLWGT, AGI, EMCONTRB, FEDTAX, PTOTVAL,
    STATETAX, TAXINC, POTHVAL, INTVAL, PEARNVAL, FICA, WSALVAL, ERNVAL.

    Provenance: CASC project reference microdata (Brand, Domingo-Ferrer & Mateo-Sanz 2002),
    identical to ``CASCrefmicrodata`` in the R package sdcMicro; copied unchanged from
    ``census.csv``. In every row PTOTVAL = PEARNVAL + POTHVAL, so the covariance matrix is
    singular. The standard microaggregation benchmark: classic MDAV on the 13 z-scored
    columns gives SSE/SST = 5.6922 %, 7.4947 %, 9.0884 %, 14.1559 % for k = 3, 4, 5, 10
    (thesis 2.4.1, ILSSDM).

    >>> df = census()
    >>> df.shape, df.schema["PTOTVAL"]
    ((1080, 13), Int64)
    >>> (df["PTOTVAL"] == df["PEARNVAL"] + df["POTHVAL"]).all()
    True
    """
    return _read("census")


@check_keywords
def adult(missing: str | None = None) -> pl.DataFrame:
    """UCI Adult ("Census Income"), the training file ``adult.data`` (Becker & Kohavi 1996,
    UCI Machine Learning Repository, CC BY 4.0; extracted from the 1994 US census):
    32,561 rows x 15 columns, the data set of thesis chapter 4.1 and of Hasegawa et al.

    Missing values (``?`` in the source) are null: 2,399 rows hold at least one (in
    workclass, occupation, native-country). ``missing="?"`` gives them back as the source's
    ordinary category ``"?"`` (then the text columns are String, exactly as
    ``pl.read_csv("adult.csv")`` reads the UCI file with column names). Otherwise text columns
    are ``pl.Enum`` with their categories sorted; numeric columns are integers (age,
    education-num, capital-loss, hours-per-week Int16; capital-gain Int32; fnlwgt Int64).
    ``income`` is ``<=50K`` in 24,720 rows and ``>50K`` in 7,841.

    >>> df = adult()
    >>> df.shape, df.schema["age"]
    ((32561, 15), Int16)
    >>> df["income"].dtype.categories.to_list()
    ['<=50K', '>50K']
    >>> adult(missing="?")["workclass"].value_counts().filter(pl.col("workclass") == "?").item(0, "count")
    1836
    """
    df = _read("adult")
    if missing is None:
        return df
    if not isinstance(missing, str):
        from .._errors import SDCError

        raise SDCError(f"missing must be None (nulls) or a string label such as '?', got {missing!r}")
    text = [c for c, t in df.schema.items() if isinstance(t, pl.Enum)]
    return df.with_columns(pl.col(c).cast(pl.String).fill_null(missing) for c in text)


@check_keywords
def arx_adult() -> tuple[pl.DataFrame, dict]:
    """ARX's Adult set and its generalisation hierarchies, as ARX's own tests use them (the
    ARX repository, ``data/adult.csv`` and ``data/adult_hierarchy_*.csv``, commit aacd487f =
    ARX 3.9.2; Apache License 2.0; the records derive from UCI Adult): 30,162 records x 9
    columns (sex, age, race, marital-status, education, native-country, workclass,
    occupation, salary-class), String as ARX reads them except ``age`` (Int16), and a dict
    ``{column: Hierarchy}`` (:class:`polars_sdc.generalize.Hierarchy`) in column order. Levels:
    sex 0-1, age 0-4, race 0-1, marital-status 0-2, education 0-3, native-country 0-2,
    workclass 0-2, occupation 0-2, salary-class 0-1 (12,960 transformations).

    >>> df, hs = arx_adult()
    >>> df.shape, [h.height for h in hs.values()]
    ((30162, 9), [1, 4, 1, 2, 3, 2, 2, 2, 1])
    >>> hs["age"].to_frame().row(38)
    ('39', '35-39', '30-39', '20-39', '*')
    """
    from ..generalize.hierarchy import Hierarchy

    df = _read("arx_adult")
    long = _read("arx_adult_hierarchies").sort("attribute", "row", "level", maintain_order=True)
    hs = {}
    for a in df.columns:
        part = long.filter(pl.col("attribute") == a)
        levels = [part.filter(pl.col("level") == j).sort("row")["label"].to_list()
                  for j in range(int(part["level"].max()) + 1)]
        hs[a] = Hierarchy(levels, name=a)
    return df, hs


@check_keywords
def eusilc() -> pl.DataFrame:
    """EU-SILC, the household survey of sdcMicro's practice guide: 14,827 persons in 6,000
    households, 28 columns, simulated by Statistics Austria from the Austrian EU-SILC 2006
    (``eusilc`` in the R package laeken, Alfons & Templ, J. Stat. Softw. 54(15), 2013; GPL >= 2).

    Household id ``db030``; household-level columns (constant within ``db030``): size
    ``hsize``, region ``db040`` (9 states), household incomes ``hy040n``..``hy145n``, ``eqSS``,
    ``eqIncome`` and the household weight ``db090``. Person-level: id ``rb030``, ``age``, sex
    ``rb090``, economic status ``pl030`` (1-7, null = missing), citizenship ``pb220a`` (null =
    missing), person incomes ``py010n``..``py140n`` (null for children under 16: structural
    nulls) and the person weight ``rb050``. Stored exactly as ``pl.read_csv(path,
    infer_schema_length=None)`` reads the exported file (Int64, String, Float64).

    sdcMicro 5.8.1 ``measure_risk`` on the keys db040, age, rb090, pb220a, hsize, pl030 with
    weight rb050 and household db030 gives a global risk of 0.003877252 and a household risk
    of 0.01343237.

    >>> df = eusilc()
    >>> df.shape, df["db030"].n_unique()
    ((14827, 28), 6000)
    >>> df.group_by("db030").agg(pl.col("hsize").n_unique())["hsize"].max()
    1
    >>> df.filter(pl.col("age") < 16)["py010n"].null_count() == df.filter(pl.col("age") < 16).height
    True
    """
    return _read("eusilc")


_FRANCDAT = {
    "Num1": [0.3, 0.12, 0.18, 1.9, 1.0, 1.0, 0.1, 0.15],
    "Key1": [1, 1, 1, 3, 4, 4, 6, 1],
    "Num2": [0.4, 0.22, 0.8, 9.0, 1.3, 1.4, 0.01, 0.5],
    "Key2": [2, 2, 2, 3, 3, 3, 2, 2],
    "Key3": [5, 1, 1, 1, 1, 1, 1, 5],
    "Key4": [1, 1, 1, 5, 4, 1, 5, 1],
    "Num3": [4, 22, 8, 91, 13, 14, 1, 5],
    "w": [18.0, 45.5, 39.0, 17.0, 541.0, 8.0, 5.0, 92.0],
}


@check_keywords
def francdat(missing: bool = False) -> pl.DataFrame:
    """``francdat``, the small worked example of disclosure-risk measures distributed with the
    R package sdcMicro (Templ, Kowarik & Meindl, J. Stat. Softw. 67(4), 2015): 8 records,
    categorical keys Key1..Key4 (integer codes), numeric Num1..Num3 and the sampling weight w.
    With ``missing=True`` three key values are null (Key2 of record 1, Key4 of record 5,
    Key1 of record 7): the example of the missing-value rules of the risk measures.

    sdcMicro 5.8.1 on the keys Key1..Key4 with weight w gives the frequencies
    fk = 2 2 2 1 1 1 1 2 and a global risk of 0.1208158 (the risk tests check these).

    >>> df = francdat()
    >>> df.group_by("Key1", "Key2", "Key3", "Key4", maintain_order=True).len()["len"].to_list()
    [2, 2, 1, 1, 1, 1]
    >>> francdat(missing=True).select(pl.col("Key1", "Key2", "Key3", "Key4").null_count()).row(0)
    (1, 1, 0, 1)
    """
    df = pl.DataFrame(_FRANCDAT, schema={c: (pl.Float64 if c in ("Num1", "Num2", "w") else pl.Int64)
                                         for c in _FRANCDAT})
    if missing:
        row = pl.int_range(pl.len())
        df = df.with_columns(
            pl.when(row == 0).then(None).otherwise(pl.col("Key2")).alias("Key2"),
            pl.when(row == 4).then(None).otherwise(pl.col("Key4")).alias("Key4"),
            pl.when(row == 6).then(None).otherwise(pl.col("Key1")).alias("Key1"),
        )
    return df


@dataclass(frozen=True)
class SyntheticSpec:
    """One synthetic data set of thesis Table A.1: an equal-weight mixture of normals
    ``N(mu, sigma)`` (sigma the standard deviation), or the uniform U(0, 1), with its size n.

    >>> from polars_sdc import datasets
    >>> spec = datasets.SYNTHETIC["DS0"]
    >>> spec, spec.n, spec.mean
    (DS0: N(0, 1), n = 100, 100, 0.0)
    """

    name: str
    n: int
    components: tuple[tuple[float, float], ...] = ()
    uniform: bool = False

    @property
    def mean(self) -> float:
        """The mixture's mean."""
        if self.uniform:
            return 0.5
        return sum(mu for mu, _ in self.components) / len(self.components)

    def __repr__(self) -> str:
        if self.uniform:
            law = "U(0, 1)"
        else:
            w = len(self.components)
            law = " + ".join(f"{'' if w == 1 else f'1/{w} '}N({mu:g}, {s:g})" for mu, s in self.components)
        return f"{self.name}: {law}, n = {self.n}"


#: Thesis Table A.1 (the thesis, appendix A.1.2): the 13 data sets used to evaluate MIL.
SYNTHETIC: dict[str, SyntheticSpec] = {
    s.name: s
    for s in (
        SyntheticSpec("DS0", 100, ((0, 1),)),
        SyntheticSpec("DS1", 200, ((5, 1), (10, 1))),
        SyntheticSpec("DS2", 200, ((5, 1), (8, 1))),
        SyntheticSpec("DS3", 200, ((5, 1), (10, 2))),
        SyntheticSpec("DS4", 200, ((10, 3), (20, 2))),
        SyntheticSpec("DS5", 300, ((0, 1), (5, 2), (12, 3))),
        SyntheticSpec("DS6", 300, ((5, 1.5), (10, 1), (15, 1.5))),
        SyntheticSpec("DS7", 300, ((5, 3), (15, 2), (20, 1))),
        SyntheticSpec("DS8", 300, ((5, 3), (12, 1.5), (20, 2))),
        SyntheticSpec("DS9", 300, ((5, 2), (10, 1.5), (18, 3))),
        SyntheticSpec("DS10", 300, ((0, 1), (5, 1), (10, 1))),
        SyntheticSpec("DS11", 300, ((0, 1), (3, 1), (6, 1))),
        SyntheticSpec("DS12", 100, uniform=True),
    )
}

_CLT_D = 6  # thesis A.1.2: normals as standardized means of d = 6 uniforms


def _spec(name: str | int) -> SyntheticSpec:
    from .._errors import SDCError

    key = f"DS{name}" if isinstance(name, int) and not isinstance(name, bool) else str(name).upper()
    try:
        return SYNTHETIC[key]
    except KeyError:
        raise SDCError(f"unknown synthetic data set {name!r}; choose one of DS0..DS12") from None


@check_keywords
def synthetic(
    name: str | int,
    seed: int | None = None,
    *,
    n: int | None = None,
    normal: str = "clt",
) -> pl.DataFrame:
    """Data set ``name`` ("DS0".."DS12", or 0..12) of thesis Table A.1 as a one-column
    Float64 frame ``x``; the same ``seed`` gives the same data (``None``: fresh entropy).

    As in thesis A.1.2, a mixture of w normals is the concatenation of w samples of
    n/w points each (the first n mod w parts get one more), in the table's order, so the
    data follow f(x) = (n_1 f_1(x) + ... + n_w f_w(x)) / n. A normal draw is
    ``mu + sigma z`` with ``z = (mean of d uniforms - 1/2) / sqrt(1/(12 d))``, d = 6, the
    thesis's central-limit generator (``normal="clt"``); ``normal="exact"`` uses numpy's
    normal sampler instead. DS12 is U(0, 1). ``n`` overrides the table's size (the thesis
    also runs N = 100 ... 100,000 in its timing study).

    >>> df = synthetic("DS1", seed=0)
    >>> df.shape, df.schema["x"]
    ((200, 1), Float64)
    >>> synthetic(1, seed=0).equals(df)
    True
    >>> SYNTHETIC["DS5"]
    DS5: 1/3 N(0, 1) + 1/3 N(5, 2) + 1/3 N(12, 3), n = 300
    """
    import numpy as np

    from .._errors import SDCError

    spec = _spec(name)
    size = spec.n if n is None else n
    from .._validation import check_int

    size = check_int(size, "n", minimum=1)
    if normal not in ("clt", "exact"):
        raise SDCError(f"normal must be 'clt' or 'exact', got {normal!r}")
    size = int(size)
    rng = np.random.default_rng(seed)
    if spec.uniform:
        x = rng.random(size)
    else:
        w = len(spec.components)
        parts = []
        for i, (mu, sigma) in enumerate(spec.components):
            m = size // w + (1 if i < size % w else 0)
            if normal == "clt":
                z = (rng.random((m, _CLT_D)).mean(axis=1) - 0.5) / np.sqrt(1.0 / (12 * _CLT_D))
            else:
                z = rng.standard_normal(m)
            parts.append(mu + sigma * z)
        x = np.concatenate(parts)
    return pl.DataFrame({"x": pl.Series("x", x, dtype=pl.Float64)})


@check_keywords
def ds(i: int, seed: int | None = None) -> pl.DataFrame:
    """Shorthand for ``synthetic(i, seed)``: thesis data set DS``i``.

    >>> ds(12, seed=3)["x"].is_between(0, 1).all()
    True
    """
    return synthetic(i, seed)
