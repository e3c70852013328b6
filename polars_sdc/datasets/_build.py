"""Rebuild the embedded parquet files of :mod:`polars_sdc.datasets` from the reference CSVs.

This is a maintainer's script, never run by the package itself::

    python -m polars_sdc.datasets._build                    # reads ../shared/data
    python -m polars_sdc.datasets._build /path/to/csv_dir   # reads census.csv, adult.csv there

- ``census.csv`` (1080 x 13, all integers) is stored as Int64 columns, unchanged.
- ``eusilc.csv`` (sdcMicro's EU-SILC tutorial data, 14,827 persons in 6,000 households) is
  stored exactly as ``pl.read_csv(..., infer_schema_length=None)`` reads it: Int64, String
  and Float64 columns, empty cells null, row order kept.
- ``adult.csv`` (UCI ``adult.data`` with a header): ``?`` becomes null, every text column
  becomes a ``pl.Enum`` whose categories are its distinct values sorted, and the numeric
  columns get the integer dtypes in :data:`ADULT_INTS`.

- ``arx_adult/`` (ARX's Adult set: ``adult.csv.gz`` and ``adult_hierarchy_<attribute>.csv``,
  from the ARX repository, Apache License 2.0): ``arx_adult.parquet`` holds the 30,162 records
  as ARX reads them (every column String, ``;``-separated source, row order kept) but ``age``
  as Int16; ``arx_adult_hierarchies.parquet`` holds the nine hierarchies in long form
  (``attribute``, ``row``: the line in the hierarchy file, ``level``, ``label``), unchanged.

Files are written with zstd compression; the build is deterministic, so rebuilding
gives the same frames.
"""
from __future__ import annotations

import sys
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE.parents[2] / "shared" / "data"  # <repo>/../shared/data

#: integer dtypes of adult's numeric columns. Int16 where the values are small (Polars sums
#: Int8/Int16 as Int64, so totals cannot overflow); fnlwgt is Int64 because its total over
#: the file (6.2e9) would overflow an Int32 sum.
ADULT_INTS: dict[str, pl.DataType] = {
    "age": pl.Int16,
    "fnlwgt": pl.Int64,
    "education-num": pl.Int16,
    "capital-gain": pl.Int32,
    "capital-loss": pl.Int16,
    "hours-per-week": pl.Int16,
}


def build_census(csv: str | Path) -> pl.DataFrame:
    """The census benchmark from its CSV: 13 Int64 columns, row order kept."""
    df = pl.read_csv(csv, infer_schema_length=None)
    return df.with_columns(pl.all().cast(pl.Int64, strict=True))


def build_adult(csv: str | Path) -> pl.DataFrame:
    """UCI Adult from its CSV: ``?`` -> null, text columns -> sorted ``pl.Enum``, integer
    columns -> :data:`ADULT_INTS` (strict casts: a value out of range is an error)."""
    raw = pl.read_csv(csv, null_values="?", infer_schema_length=None)
    exprs = []
    for name, dtype in raw.schema.items():
        col = pl.col(name)
        if dtype == pl.String:
            col = col.str.strip_chars()
            cats = raw.get_column(name).str.strip_chars().drop_nulls().unique().sort().to_list()
            exprs.append(col.cast(pl.Enum(cats)))
        else:
            exprs.append(col.cast(ADULT_INTS.get(name, pl.Int64), strict=True))
    return raw.select(exprs)


def build_eusilc(csv: str | Path) -> pl.DataFrame:
    """EU-SILC from its CSV, unchanged (the dtypes Polars infers over the whole file)."""
    return pl.read_csv(csv, infer_schema_length=None)


ARX_ADULT_ATTRIBUTES = ("sex", "age", "race", "marital-status", "education", "native-country",
                        "workclass", "occupation", "salary-class")


def build_arx_adult(directory: str | Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """ARX's Adult records and its hierarchies (long form) from the ARX files in ``directory``."""
    directory = Path(directory)
    df = pl.read_csv(directory / "adult.csv.gz", separator=";", infer_schema_length=0)
    df = df.with_columns(pl.col("age").cast(pl.Int16, strict=True))
    parts = []
    for a in ARX_ADULT_ATTRIBUTES:
        lines = [ln.rstrip("\r\n") for ln in (directory / f"adult_hierarchy_{a}.csv").read_text("utf-8").splitlines()]
        rows = [ln.split(";") for ln in lines if ln.strip()]
        parts.append(pl.DataFrame({
            "attribute": [a] * sum(len(r) for r in rows),
            "row": [i for i, r in enumerate(rows) for _ in r],
            "level": [j for r in rows for j in range(len(r))],
            "label": [x for r in rows for x in r],
        }, schema={"attribute": pl.String, "row": pl.Int32, "level": pl.Int8, "label": pl.String}))
    return df, pl.concat(parts)


def write(df: pl.DataFrame, path: str | Path) -> None:
    df.write_parquet(path, compression="zstd", compression_level=19, statistics=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    src = Path(argv[0]) if argv else DEFAULT_SOURCE
    out = Path(argv[1]) if len(argv) > 1 else HERE
    for name, build in (("census", build_census), ("adult", build_adult), ("eusilc", build_eusilc)):
        df = build(src / f"{name}.csv")
        target = out / f"{name}.parquet"
        write(df, target)
        print(f"{target}: {df.height} x {df.width}, {target.stat().st_size:,} bytes")
    if not (src / "arx_adult").is_dir():
        print(f"{src / 'arx_adult'}: not there; arx_adult*.parquet left as they are")
        return 0
    records, hierarchies = build_arx_adult(src / "arx_adult")
    for name, df in (("arx_adult", records), ("arx_adult_hierarchies", hierarchies)):
        target = out / f"{name}.parquet"
        write(df, target)
        print(f"{target}: {df.height} x {df.width}, {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
