"""Embedded data sets (census, adult) and the thesis's synthetic generators DS0-DS12."""
from __future__ import annotations

from importlib import resources

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_sdc
from polars_sdc import datasets
from polars_sdc.datasets import _build

CENSUS_COLUMNS = [
    "AFNLWGT", "AGI", "EMCONTRB", "FEDTAX", "PTOTVAL", "STATETAX", "TAXINC",
    "POTHVAL", "INTVAL", "PEARNVAL", "FICA", "WSALVAL", "ERNVAL",
]
ADULT_TEXT = [
    "workclass", "education", "marital-status", "occupation", "relationship",
    "race", "sex", "native-country", "income",
]


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return datasets.adult()


# -- packaging ---------------------------------------------------------------------------
def test_parquet_files_ship_inside_the_package():
    root = resources.files("polars_sdc.datasets")
    for name in ("census", "adult"):
        assert (root / f"{name}.parquet").is_file()


def test_reachable_from_the_package_without_numba():
    assert polars_sdc.datasets is datasets


def test_each_call_returns_a_fresh_frame():
    a, b = datasets.census(), datasets.census()
    assert a is not b and a.equals(b)
    a[0, "AGI"] = -1  # changing one copy leaves the next call untouched
    assert datasets.census()[0, "AGI"] == b[0, "AGI"] != -1


# -- census -------------------------------------------------------------------------------
def test_census_shape_and_dtypes():
    df = datasets.census()
    assert df.shape == (1080, 13)
    assert df.columns == CENSUS_COLUMNS
    assert all(t == pl.Int64 for t in df.dtypes)
    assert df.null_count().sum_horizontal().item() == 0


def test_census_ptotval_is_earnings_plus_other_income():
    df = datasets.census()
    assert (df["PTOTVAL"] == df["PEARNVAL"] + df["POTHVAL"]).all()
    # hence the covariance matrix is singular
    X = df.to_numpy().astype(float)
    assert np.linalg.matrix_rank(np.cov(X, rowvar=False)) < 13


def test_census_first_row_is_the_benchmark_first_record():
    assert datasets.census().row(0) == (
        270914, 45554, 4173, 4621, 45527, 1428, 30809, 27, 27, 45500, 3480, 45500, 45500
    )


def test_census_mdav_k5_benchmark_number():
    df = datasets.census()
    groups = df.sdc.partition(5)
    assert round(100 * df.sdc.ilssdm(groups=groups), 4) == 9.0884


# -- adult --------------------------------------------------------------------------------
def test_adult_shape_and_dtypes(adult):
    assert adult.shape == (32561, 15)
    for c in ADULT_TEXT:
        dtype = adult.schema[c]
        assert isinstance(dtype, pl.Enum), c
        cats = dtype.categories.to_list()
        assert cats == sorted(cats), c
        assert "?" not in cats and all(x == x.strip() for x in cats), c
    numeric = [c for c in adult.columns if c not in ADULT_TEXT]
    assert numeric == ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    for c in numeric:
        assert adult.schema[c].is_integer(), c
    assert adult.schema["age"] == pl.Int16 and adult.schema["fnlwgt"] == pl.Int64


def test_adult_known_facts(adult):
    counts = dict(adult["income"].value_counts().iter_rows())
    assert counts == {"<=50K": 24720, ">50K": 7841}
    assert adult.filter(pl.any_horizontal(pl.all().is_null())).height == 2399
    nulls = {c: n for c, n in adult.null_count().row(0, named=True).items() if n}
    assert nulls == {"workclass": 1836, "occupation": 1843, "native-country": 583}
    assert (adult["age"].min(), adult["age"].max()) == (17, 90)
    assert adult["sex"].dtype.categories.to_list() == ["Female", "Male"]
    assert adult["education"].n_unique() == 16
    assert adult.row(0) == (
        39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical",
        "Not-in-family", "White", "Male", 2174, 0, 40, "United-States", "<=50K",
    )


def test_adult_integer_totals_do_not_overflow(adult):
    # reference totals from Python ints
    for c in ("age", "fnlwgt", "capital-gain", "hours-per-week"):
        assert adult[c].sum() == sum(adult[c].to_list()), c


def test_adult_phi_from_the_data_notes(adult):
    # Hasegawa et al. (Pk-anonymity): phi = 2 (b - a) / ln((N - 1)/(k - 1)), k = 2
    n = adult.height
    for col, phi in (("age", 14.0508), ("capital-gain", 19247.53), ("education-num", 2.8872)):
        span = adult[col].max() - adult[col].min()
        assert abs(2 * span / np.log((n - 1) / 1) - phi) < 0.01, col


# -- the build script (on a tiny CSV; the shipped files were made the same way) -------------
def test_build_adult_converts_question_marks_enums_and_ints(tmp_path):
    src = tmp_path / "adult.csv"
    src.write_text(
        "age,workclass,fnlwgt,education-num,income\n"
        "39,State-gov,77516,13,<=50K\n"
        "50,?,83311,13,>50K\n"
        "38,Private,215646,9,<=50K\n"
    )
    df = _build.build_adult(src)
    assert df.schema["workclass"] == pl.Enum(["Private", "State-gov"])
    assert df["workclass"].to_list() == ["State-gov", None, "Private"]
    assert df.schema["age"] == pl.Int16 and df.schema["fnlwgt"] == pl.Int64
    assert df.schema["income"] == pl.Enum(["<=50K", ">50K"])
    out = tmp_path / "adult.parquet"
    _build.write(df, out)
    assert pl.read_parquet(out).equals(df)
    assert pl.read_parquet(out).schema == df.schema


def test_build_census_keeps_values_and_order(tmp_path):
    src = tmp_path / "census.csv"
    src.write_text("A,B\n3,1\n1,2\n")
    df = _build.build_census(src)
    assert df.schema == pl.Schema({"A": pl.Int64, "B": pl.Int64})
    assert df.rows() == [(3, 1), (1, 2)]


def test_build_main_writes_every_file(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    datasets.census().head(5).write_csv(src / "census.csv")
    (src / "adult.csv").write_text("age,sex\n30,Male\n40,?\n")
    datasets.eusilc().head(7).write_csv(src / "eusilc.csv")
    assert _build.main([str(src), str(out)]) == 0
    assert pl.read_parquet(out / "census.parquet").equals(datasets.census().head(5))
    assert pl.read_parquet(out / "adult.parquet")["sex"].to_list() == ["Male", None]
    assert pl.read_parquet(out / "eusilc.parquet").equals(datasets.eusilc().head(7))
    assert "census.parquet: 5 x 13" in capsys.readouterr().out


def test_build_arx_adult_roundtrip(tmp_path):
    """ARX's files (records gzipped, hierarchies ';'-separated) -> the embedded frames, unchanged."""
    import gzip

    df, hs = datasets.arx_adult()
    d = tmp_path / "arx_adult"
    d.mkdir()
    head = df.head(6)
    with gzip.open(d / "adult.csv.gz", "wt", encoding="utf-8") as fh:
        fh.write(head.write_csv(separator=";"))
    for a, h in hs.items():
        (d / f"adult_hierarchy_{a}.csv").write_text("\n".join(";".join(r) for r in h.to_frame().rows()) + "\n")
    records, long = _build.build_arx_adult(d)
    assert records.equals(head)
    assert long.filter(pl.col("attribute") == "age", pl.col("row") == 38)["label"].to_list() == list(
        hs["age"].to_frame().row(38))
    assert long.height == sum(h.n_values * (h.height + 1) for h in hs.values())


# -- synthetic DS0-DS12 ---------------------------------------------------------------------
# Thesis Table A.1: (n, [(mu, sigma), ...]) with sigma the standard deviation.
TABLE_A1 = {
    0: (100, [(0, 1)]),
    1: (200, [(5, 1), (10, 1)]),
    2: (200, [(5, 1), (8, 1)]),
    3: (200, [(5, 1), (10, 2)]),
    4: (200, [(10, 3), (20, 2)]),
    5: (300, [(0, 1), (5, 2), (12, 3)]),
    6: (300, [(5, 1.5), (10, 1), (15, 1.5)]),
    7: (300, [(5, 3), (15, 2), (20, 1)]),
    8: (300, [(5, 3), (12, 1.5), (20, 2)]),
    9: (300, [(5, 2), (10, 1.5), (18, 3)]),
    10: (300, [(0, 1), (5, 1), (10, 1)]),
    11: (300, [(0, 1), (3, 1), (6, 1)]),
}


@pytest.mark.parametrize("i", range(13))
def test_synthetic_shape_dtype_and_determinism(i):
    df = datasets.synthetic(f"DS{i}", seed=7)
    n = TABLE_A1[i][0] if i in TABLE_A1 else 100
    assert df.shape == (n, 1) and df.schema == pl.Schema({"x": pl.Float64})
    assert df.equals(datasets.synthetic(f"DS{i}", seed=7))
    assert df.equals(datasets.ds(i, 7)) and df.equals(datasets.synthetic(i, seed=7))
    assert not df.equals(datasets.synthetic(f"ds{i}", seed=8))
    assert datasets.SYNTHETIC[f"DS{i}"].n == n


@pytest.mark.parametrize("i", sorted(TABLE_A1))
@pytest.mark.parametrize("normal", ["clt", "exact"])
def test_synthetic_components_have_the_table_parameters(i, normal):
    """Parts are concatenated in table order: each part's mean and std match (mu, sigma)."""
    _, comps = TABLE_A1[i]
    w = len(comps)
    m = 6000
    x = datasets.synthetic(i, seed=1, n=w * m, normal=normal)["x"].to_numpy()
    for j, (mu, sigma) in enumerate(comps):
        part = x[j * m:(j + 1) * m]
        assert abs(part.mean() - mu) < 5 * sigma / np.sqrt(m), (j, part.mean())
        assert abs(part.std() / sigma - 1) < 0.05, (j, part.std())


@pytest.mark.parametrize("i", sorted(TABLE_A1))
def test_synthetic_mixture_mean_at_table_size(i):
    n, comps = TABLE_A1[i]
    mus = np.array([c[0] for c in comps], dtype=float)
    sig = np.array([c[1] for c in comps], dtype=float)
    mix_mean = mus.mean()
    mix_sd = np.sqrt((sig**2 + mus**2).mean() - mix_mean**2)
    for seed in range(3):
        x = datasets.synthetic(i, seed=seed)["x"].to_numpy()
        assert abs(x.mean() - mix_mean) < 4 * mix_sd / np.sqrt(n)
    assert datasets.SYNTHETIC[f"DS{i}"].mean == pytest.approx(mix_mean)


def test_clt_normals_are_bounded_like_the_thesis_generator():
    # z = (mean of 6 uniforms - 1/2) / sqrt(1/72) lies within +-3 sqrt(2)
    x = datasets.synthetic("DS0", seed=0, n=20000)["x"].to_numpy()
    assert np.abs(x).max() <= 3 * np.sqrt(2)
    y = datasets.synthetic("DS0", seed=0, n=20000, normal="exact")["x"].to_numpy()
    assert not np.array_equal(x, y)


def test_uneven_split_gives_the_first_parts_one_more():
    x = datasets.synthetic("DS10", seed=0, n=11)["x"].to_numpy()  # parts 4, 4, 3 near 0, 5, 10
    assert len(x) == 11
    assert np.all(np.abs(x[:4]) < 4.3) and np.all(np.abs(x[4:8] - 5) < 4.3) and np.all(np.abs(x[8:] - 10) < 4.3)


def test_ds12_is_uniform_on_unit_interval():
    x = datasets.synthetic("DS12", seed=3, n=5000)["x"].to_numpy()
    assert x.min() >= 0 and x.max() <= 1
    assert abs(x.mean() - 0.5) < 0.02 and abs(x.var() - 1 / 12) < 0.005


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"name": "DS13"}, "DS13"),
        ({"name": 13}, "13"),
        ({"name": "DS1", "n": 0}, "n must be"),
        ({"name": "DS1", "normal": "box"}, "normal"),
    ],
)
def test_synthetic_bad_arguments(kwargs, needle):
    with pytest.raises(polars_sdc.SDCError, match=needle):
        datasets.synthetic(**kwargs)


@settings(max_examples=25, deadline=None)
@given(i=st.integers(0, 12), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 50))
def test_synthetic_is_a_pure_function_of_its_seed(i, seed, n):
    a = datasets.synthetic(i, seed=seed, n=n)
    assert a.height == n and a["x"].is_finite().all()
    assert a.equals(datasets.synthetic(i, seed=seed, n=n))


def test_eusilc_matches_the_reference_csv_facts():
    df = datasets.eusilc()
    assert df.height == 14827 and df["db030"].n_unique() == 6000
    household_level = ["hsize", "db040", "hy040n", "hy050n", "hy070n", "hy080n", "hy090n", "hy110n",
                       "hy130n", "hy145n", "eqSS", "eqIncome", "db090"]
    per_household = df.group_by("db030").agg(pl.col(household_level).n_unique())
    assert all(per_household[c].max() == 1 for c in household_level)
    assert df["rb090"].unique().sort().to_list() == ["female", "male"]
    assert df["pl030"].null_count() > 0 and df["py010n"].null_count() > 0
    assert datasets.eusilc() is not datasets.eusilc()
