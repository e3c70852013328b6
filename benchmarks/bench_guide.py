"""Numbers for the README guide "Choosing k and the quasi-identifiers" (census and Adult).

    python benchmarks/bench_guide.py            # about 2-4 minutes on the shared 2-core machine

1. Adult (32,561 rows), raw data: what each added key does to the re-identification risk
   (distinct key combinations, sample uniques, records in classes below 5, global risk =
   mean 1/fk, i.e. the file taken as the whole population: the worst case).
2. Adult, keys age + sex + race + marital-status + education, MDAV for k = 2, 3, 5, 10, 20:
   global risk of the release, SSE/SST of age and the share of each categorical key changed.
3. Adult, k = 5, keys added one by one: the cost on the keys already there.
4. Census (1,080 x 13): SSE/SST of MDAV and MDAV + MIL for k = 2 .. 20, and at k = 5 the
   SSE/SST of AFNLWGT + AGI + FEDTAX when more columns are microaggregated with them.
5. Adult, all 7 keys: recoding the wide keys and banding age before MDAV.
"""
from __future__ import annotations

import polars as pl

import polars_sdc  # noqa: F401
from polars_sdc import datasets

import timing  # benchmarks/timing.py: the shared best-of-n wall / CPU timer

ADULT_KEYS = ["age", "sex", "race", "marital-status", "education", "occupation", "native-country"]


def risk_row(df: pl.DataFrame, keys: list[str]) -> tuple[int, int, int, float]:
    fk = df.group_by(keys).agg(pl.len().alias("fk"))
    per = df.join(fk, on=keys, how="left", nulls_equal=True)["fk"]
    return fk.height, int((per == 1).sum()), int((per < 5).sum()), float((1.0 / per).mean())


def part1(adult: pl.DataFrame) -> None:
    print("\n1. Adult, raw data, keys added one by one (no weights: the file as the population)\n")
    print("| keys | combinations | sample uniques | records with fk < 5 | global risk (mean 1/fk) | "
          "`df.sdc.global_risk` |")
    print("|---|---|---|---|---|---|")
    for i in range(1, len(ADULT_KEYS) + 1):
        keys = ADULT_KEYS[:i]
        comb, uniq, below5, gr = risk_row(adult, keys)
        pkg = adult.sdc.global_risk(keys)["global_risk"]
        label = keys[0] if i == 1 else f"+ {keys[-1]}"
        print(f"| {label} | {comb:,} | {uniq:,} | {below5:,} | {gr:.4f} | {pkg:.4f} |", flush=True)


def release_cost(adult: pl.DataFrame, out: pl.DataFrame, keys: list[str]) -> str:
    cat = [c for c in keys if c != "age"]
    age = adult.sdc.ilssdm(["age"], masked=out)
    changed = " / ".join(f"{100 * float((adult[c] != out[c]).mean()):.1f}" for c in cat)
    return f"{100 * age:.2f} | {changed}"


def part2(adult: pl.DataFrame) -> None:
    keys = ADULT_KEYS[:5]
    print(f"\n2. Adult, keys {', '.join(keys)}, MDAV: the release for each k\n")
    print("| k | smallest class | global risk | SSE/SST of age % | % changed: sex / race / marital-status / "
          "education | seconds |")
    print("|---|---|---|---|---|---|")
    base = adult.sdc.global_risk(keys)["global_risk"]
    print(f"| (raw) | {adult.sdc.k_anonymity(keys)} | {base:.4f} | 0 | 0 / 0 / 0 / 0 | |")
    for k in (2, 3, 5, 10, 20):
        t = timing.timed(lambda: adult.sdc.mdav(k=k, on=keys))
        out, sec = t.result, t.wall
        print(f"| {k} | {out.sdc.k_anonymity(keys)} | {out.sdc.global_risk(keys)['global_risk']:.4f} | "
              f"{release_cost(adult, out, keys)} | {sec:.1f} |", flush=True)


def part3(adult: pl.DataFrame) -> None:
    print("\n3. Adult, MDAV k = 5, keys added one by one: SSE/SST of age and % of each key changed\n")
    print("| keys | SSE/SST of age % | % changed (in key order after age) |")
    print("|---|---|---|")
    for i in range(2, len(ADULT_KEYS) + 1):
        keys = ADULT_KEYS[:i]
        out = adult.sdc.mdav(k=5, on=keys)
        label = "age, sex" if i == 2 else f"+ {keys[-1]}"
        print(f"| {label} | {release_cost(adult, out, keys).replace(' | ', ' | ', 1)} |", flush=True)


def part4() -> None:
    census = datasets.census()
    cols = census.columns
    print("\n4a. Census, all 13 columns z-scored: SSE/SST % against k\n")
    print("| k | " + " | ".join(str(k) for k in (2, 3, 4, 5, 6, 8, 10, 15, 20)) + " |")
    print("|---|" + "---|" * 9)
    for name, kw in (("MDAV", {}), ("MDAV + MIL", {"refine": "mil"})):
        vals = []
        for k in (2, 3, 4, 5, 6, 8, 10, 15, 20):
            out = census.sdc.mdav(k=k, on=cols, integers="float", **kw)
            vals.append(f"{100 * census.sdc.ilssdm(cols, masked=out):.2f}")
        print(f"| {name} | " + " | ".join(vals) + " |", flush=True)
    three = ["AFNLWGT", "AGI", "FEDTAX"]
    print("\n4b. Census, MDAV k = 5: SSE/SST % of AFNLWGT + AGI + FEDTAX when other columns are "
          "microaggregated with them\n")
    print("| columns in `on` | SSE/SST of the three % | SSE/SST of all `on` % |")
    print("|---|---|---|")
    rest = [c for c in cols if c not in three]
    for extra in (0, 2, 5, 10):
        on = three + rest[:extra]
        out = census.sdc.mdav(k=5, on=on, integers="float")
        print(f"| {len(on)} | {100 * census.sdc.ilssdm(three, masked=out):.2f} | "
              f"{100 * census.sdc.ilssdm(on, masked=out):.2f} |", flush=True)


def part5(adult: pl.DataFrame) -> None:
    keys = ADULT_KEYS
    print("\n5. Adult, all 7 keys: coarsening the keys before microaggregation (raw file risk)\n")
    print("| keys | combinations | sample uniques | global risk |")
    print("|---|---|---|---|")
    band = pl.col("age") // 5 * 5
    rec = adult.sdc.recode(["education", "occupation", "native-country"], p=0.05)
    for label, df in (("as collected", adult),
                      ("age in 5-year bands", adult.with_columns(band)),
                      ("education, occupation, native-country recoded, p = 0.05", rec),
                      ("both", rec.with_columns(band))):
        comb, uniq, _, gr = risk_row(df, keys)
        print(f"| {label} | {comb:,} | {uniq:,} | {gr:.4f} |", flush=True)


def main() -> None:
    adult = datasets.adult(missing="?")
    part1(adult)
    part2(adult)
    part3(adult)
    part4()
    part5(adult)


if __name__ == "__main__":
    main()
