"""The ``polars-sdc`` command (also ``python -m polars_sdc``).

Subcommands:

- ``polars-sdc demo [--out PATH] [--k 5] [--method mdav] [--refine mil|none]``: microaggregate
  the embedded census data (all 13 columns, z-scored; MDAV then MIL by default), print a short
  report (with the loss before MIL) and write the protected file.
- ``polars-sdc anonymize IN OUT --k K --on COLS [--by COLS [--merge-small-strata]] [--method M]
  [--refine mil|none] [--no-standardize] [--group-column NAME] [--null-values TOKENS]``: microaggregate a CSV or
  Parquet file (chosen by extension) as a lazy scan -> ``lf.sdc.microaggregate`` -> sink pipeline and print a
  one-line summary. The release is written to a temporary file in the output's directory, read back, and
  renamed over the output only if every equivalence class on the ``--on`` and ``--by`` columns has at least
  k rows; an output that is the input (same path, a symlink or a hard link to it) is refused, and so is a
  numeric CSV column holding a stray token such as "n/a" (unless listed in ``--null-values``).
- ``polars-sdc risk FILE --on COLS [--weight COL] [--alpha A] [--threshold T] [--no-suda]``:
  print the disclosure risk of a file (``lf.sdc.risk``).
- ``polars-sdc report ORIG MASKED --on COLS [--numeric COLS] [--sensitive COL] [--weight COL]
  --out report.html``: the release report (``polars_sdc.report``) as one HTML page.

Any error (bad input, missing file, unknown extension, Polars errors) is printed as one
line ``polars-sdc: error: ...`` on stderr with exit code 2, never as a traceback.

>>> main(["demo", "--k", "0"])
2
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from ._errors import SDCError

PROG = "polars-sdc"
EXIT_ERROR = 2
_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}

T = TypeVar("T")


class _UsageError(Exception):
    """A command-line usage problem (reported like every other error: one line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would print the usage block and exit
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("polars_sdc")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "unknown"


def _weights(text: str) -> dict[str, float]:
    """``col=w,col=w`` -> {col: w}."""
    out = {}
    for part in _columns(text):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise _UsageError(f"--weights {text!r}: expected COL=WEIGHT pairs separated by commas")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise _UsageError(f"--weights: weight of {name.strip()!r} must be a number, got {value!r}") from None
    return out


def _methods() -> list[str]:
    from .microagg import METHODS

    return sorted(METHODS)


def _columns(text: str) -> list[str]:
    cols = [c.strip() for c in text.split(",")]
    if not all(cols):
        raise _UsageError(f"empty column name in {text!r}; give names separated by commas")
    return cols


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _format(path: str | Path, role: str) -> str:
    ext = Path(path).suffix.lower()
    try:
        return _FORMATS[ext]
    except KeyError:
        raise _UsageError(
            f"{role} file {str(path)!r}: unknown extension {ext or '(none)'!r}; use .csv or .parquet"
        ) from None


def _scan(path: str, null_values: Sequence[str] | None = None) -> pl.LazyFrame:
    fmt = _format(path, "input")
    if Path(path).is_dir():
        raise _UsageError(f"input {path!r} is a directory; give a .csv or .parquet file")
    if not Path(path).is_file():
        raise FileNotFoundError(f"input file {path!r} not found")
    if fmt == "csv":
        return pl.scan_csv(path, infer_schema_length=10_000, null_values=list(null_values) if null_values else None)
    return pl.scan_parquet(path)


def _check_numeric_text(lf: pl.LazyFrame, on: Sequence[str]) -> None:
    """A CSV column of ``on`` read as String although most of its values are numbers holds a
    stray token (e.g. "n/a"): raise naming the column and the first bad value instead of
    masking it silently as a nominal category."""
    schema = lf.collect_schema()
    text = [c for c in on if c in schema and schema[c] == pl.String]
    if not text:
        return
    df = lf.select(text).collect()
    for c in text:
        s = df.get_column(c)
        values = s.drop_nulls()
        parsed = values.str.strip_chars().cast(pl.Float64, strict=False)
        good = int(parsed.is_not_null().sum())
        if good and 2 * good >= values.len():
            bad_at = (s.is_not_null() & s.str.strip_chars().cast(pl.Float64, strict=False).is_null()).arg_true()
            row = int(bad_at[0])
            raise SDCError(
                f"column {c!r}: value {s[row]!r} (row {row + 1}) is not a number, though {good} of "
                f"{values.len()} values are; fix the file or pass --null-values {s[row]!r}"
            )


def _sink(lf: pl.LazyFrame, path: str, fmt: str | None = None) -> None:
    fmt = fmt or _format(path, "output")
    if fmt == "csv":
        lf.sink_csv(path)
    else:
        lf.sink_parquet(path)


def _same_file(a: str, b: str) -> bool:
    """True when the paths name one file: same real path (symlinks resolved) or the same
    inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # b does not exist yet
        return False


def _file_mode(target: str) -> int:
    """The permission bits the output gets: those of the file it replaces, else the umask's."""
    try:
        return os.stat(target).st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _temp_path(target: str) -> str:
    """A fresh file name next to ``target`` (same directory, so the final rename is atomic)."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder)
    os.close(fd)
    return tmp


def _write(df: pl.DataFrame, path: str) -> None:
    fmt = _format(path, "output")
    if fmt == "csv":
        df.write_csv(path)
    else:
        df.write_parquet(path)


def _with_progress(label: str, work: Callable[[], T], *, enabled: bool | None = None, delay: float = 0.5) -> T:
    """Run ``work()``; when stdout and stderr are terminals and it takes longer than ``delay``
    seconds, show a spinner with the elapsed time on stderr (erased when done)."""
    if enabled is None:
        enabled = sys.stdout.isatty() and sys.stderr.isatty()
    if not enabled:
        return work()
    done = threading.Event()

    def spin() -> None:
        if done.wait(delay):
            return
        frames = "|/-\\"
        t0 = time.perf_counter() - delay
        i = 0
        while not done.wait(0.1):
            sys.stderr.write(f"\r{frames[i % 4]} {label} {time.perf_counter() - t0:6.1f} s")
            sys.stderr.flush()
            i += 1
        sys.stderr.write("\r" + " " * (len(label) + 12) + "\r")
        sys.stderr.flush()

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        return work()
    finally:
        done.set()
        thread.join()


def _group_stats(frame: pl.DataFrame | pl.LazyFrame, keys: Sequence[str]) -> tuple[int, int]:
    """(number of groups, smallest group size) of the rows sharing all ``keys`` values."""
    sizes = frame.lazy().group_by(list(keys)).len()
    row = sizes.select(pl.len().alias("groups"), pl.col("len").min().alias("smallest")).collect().row(0)
    return int(row[0]), int(row[1] or 0)


# -- subcommands --------------------------------------------------------------------------
def _cmd_demo(args: argparse.Namespace) -> int:
    from . import datasets

    out = args.out if args.out is not None else f"census_k{args.k}.parquet"
    _format(out, "output")
    df = datasets.census()
    t0 = time.perf_counter()
    refine = None if args.refine == "none" else args.refine
    masked = _with_progress(
        "microaggregating",
        lambda: df.sdc.microaggregate(args.k, method=args.method, refine=refine, group_column="__group__"),
    )
    elapsed = time.perf_counter() - t0
    groups = masked.get_column("__group__")
    masked = masked.drop("__group__")
    sizes = groups.value_counts()["count"]
    loss = df.sdc.ilssdm(masked=masked)
    _write(masked, out)
    print(f"census data (CASC benchmark): {df.height} rows x {df.width} columns, all z-scored")
    print(f"method {args.method}{' + ' + refine.upper() if refine else ''}, k = {args.k}")
    print(f"  rows           {masked.height}")
    print(f"  groups         {sizes.len()}")
    print(f"  smallest group {sizes.min()}")
    print(f"  SSE/SST        {100 * loss:.4f} %")
    if refine:
        plain = df.sdc.ilssdm(groups=df.sdc.partition(args.k, method=args.method))
        print(f"  without {refine.upper():<6} {100 * plain:.4f} %")
    print(f"  time           {elapsed:.3f} s")
    print(f"wrote {out}")
    return 0


def _cmd_anonymize(args: argparse.Namespace) -> int:
    on = _columns(args.on)
    by = _columns(args.by) if args.by else None
    null_values = _columns(args.null_values) if args.null_values else None
    out_fmt = _format(args.output, "output")
    if _same_file(args.input, args.output):
        raise _UsageError("output file must differ from the input file (it is the same file, a link or a symlink to it)")
    if os.path.isdir(args.output):
        raise _UsageError(f"output {args.output!r} is a directory; give a .csv or .parquet file name")
    lf = _scan(args.input, null_values)
    if _format(args.input, "input") == "csv":
        _check_numeric_text(lf, on)
    options: dict = {}
    if args.order is not None:
        options["order"] = args.order
    if args.gamma is not None:
        options["gamma"] = args.gamma
    masked = lf.sdc.microaggregate(
        args.k,
        on,
        method=args.method,
        refine=None if args.refine == "none" else args.refine,
        by=by,
        standardize=not args.standardize_off,
        ordinal=_columns(args.ordinal) if args.ordinal else (),
        weights=_weights(args.weights) if args.weights else None,
        group_column=args.group_column,
        merge_small_strata=args.merge_small_strata,
        integers=args.integers,
        **options,
    )
    # write next to the output, check the release, then rename over the output: a failure
    # (or a release below k) never leaves a partial or unsafe file, never touches the input
    tmp = _temp_path(args.output)
    try:
        t0 = time.perf_counter()
        _with_progress("anonymizing", lambda: _sink(masked, tmp, out_fmt), enabled=args.progress)
        elapsed = time.perf_counter() - t0
        result = pl.scan_csv(tmp, infer_schema_length=10_000) if out_fmt == "csv" else pl.scan_parquet(tmp)
        # read the release back: its equivalence classes on the masked and strata columns,
        # i.e. the k-anonymity a recipient can check (and the group sizes if written)
        n_classes, smallest = _group_stats(result, on + (by or []))
        if smallest < args.k:
            raise SDCError(
                f"the release has an equivalence class of {smallest} row(s) on {','.join(on + (by or []))}, "
                f"fewer than k = {args.k}; nothing written"
            )
        if args.group_column:
            n_groups, smallest = _group_stats(result, [args.group_column])
            what = "groups"
        else:
            n_groups, what = n_classes, "equivalence classes"
        rows = result.select(pl.len()).collect().item()
        numeric = [c for c in on if lf.collect_schema()[c].is_numeric()]
        loss = lf.sdc.ilssdm(numeric, masked=result.select(numeric)) if numeric else None
        risk = result.sdc.global_risk(on + (by or []))["global_risk"]
        os.chmod(tmp, _file_mode(args.output))
        os.replace(tmp, args.output)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(
        f"wrote {args.output}: {rows} rows, {len(on)} column(s) microaggregated by {args.method} "
        f"(k = {args.k}{', by ' + ','.join(by) if by else ''}), {n_groups} {what}, "
        f"smallest {smallest}, {elapsed:.2f} s"
    )
    loss_text = f"SSE/SST {100 * loss:.4f} % (numeric --on columns, z-scored)" if loss is not None else "SSE/SST n/a"
    print(f"  {loss_text}; global risk {risk:.6g} (mean re-identification risk on --on and --by)")
    return 0


def _cmd_risk(args: argparse.Namespace) -> int:
    on = _columns(args.on)
    lf = _scan(args.input)
    t0 = time.perf_counter()
    result = _with_progress(
        "measuring risk",
        lambda: lf.sdc.risk(on, weight=args.weight, alpha=args.alpha, suda=args.suda, threshold=args.threshold),
        enabled=args.progress,
    )
    elapsed = time.perf_counter() - t0
    print(f"disclosure risk of {args.input} on keys {', '.join(on)}" + (f", weight {args.weight}" if args.weight else ""))
    for name, value in result.as_dict().items():
        text = f"{value:.7g}" if isinstance(value, float) else str(value)
        print(f"  {name:<38} {text}")
    print(f"  {'time':<38} {elapsed:.2f} s")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .risk.report import report

    if not args.out.endswith((".html", ".htm")):
        raise _UsageError(f"--out {args.out}: the report is an .html page")
    on = _columns(args.on)
    numeric = _columns(args.numeric) if args.numeric else None
    orig, masked = _scan(args.original), _scan(args.masked)
    t0 = time.perf_counter()
    rep = _with_progress(
        "building the report",
        lambda: report(orig, masked, on=on, numeric=numeric, sensitive=args.sensitive, weight=args.weight),
        enabled=args.progress,
    )
    rep.save(args.out)
    risk = rep.tables["risk: Risk on the keys before and after masking"]
    row = {m: (b, a) for m, b, a in risk.iter_rows()}
    b, a = row["global_risk"]
    kb, ka = row["k_anonymity"]
    print(
        f"wrote {args.out}: k-anonymity {kb:g} -> {ka:g}, global risk {b:.6g} -> {a:.6g}, "
        f"{time.perf_counter() - t0:.2f} s"
    )
    return 0


def _add_risk_parser(sub: Any) -> None:
    rep = sub.add_parser(
        "report",
        help="write an HTML report of a release's risk before/after masking and its utility",
        description="Risk before and after, numeric disclosure, utility, l-diversity/t-closeness, "
        "risk-utility map and SUDA contributions of MASKED against ORIG (same rows, same order).",
    )
    rep.add_argument("original", metavar="ORIG", help="original .csv or .parquet")
    rep.add_argument("masked", metavar="MASKED", help="masked .csv or .parquet")
    rep.add_argument("--on", required=True, metavar="COLS", help="key columns, comma-separated")
    rep.add_argument("--numeric", metavar="COLS", help="numeric columns (record linkage, utility, R-U map)")
    rep.add_argument("--sensitive", metavar="COL", help="sensitive column (l-diversity, t-closeness)")
    rep.add_argument("--weight", metavar="COL", help="sampling-weight column")
    rep.add_argument("--out", required=True, metavar="PATH", help="the HTML page to write")
    rep.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="spinner on stderr (default: only when run in a terminal)")
    rep.set_defaults(run=_cmd_report)

    risk = sub.add_parser(
        "risk",
        help="measure the disclosure risk of a CSV or Parquet file",
        description="Print k-anonymity violations, individual/global risk (sdcMicro), SUDA2 and "
        "ARX's prosecutor/journalist/marketer risk of FILE on the key columns --on.",
    )
    risk.add_argument("input", metavar="FILE", help="input .csv or .parquet")
    risk.add_argument("--on", required=True, metavar="COLS", help="key (quasi-identifier) columns, comma-separated")
    risk.add_argument("--weight", metavar="COL", help="sampling-weight column (weights >= 1)")
    risk.add_argument("--alpha", type=float, default=1.0, help="weight of a missing-value match, 0..1 (default 1)")
    risk.add_argument("--threshold", type=float, default=0.1, help="ARX's acceptable record risk (default 0.1)")
    risk.add_argument("--suda", action=argparse.BooleanOptionalAction, default=True, help="SUDA2 scores (default on)")
    risk.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="spinner on stderr (default: only when run in a terminal)",
    )
    risk.set_defaults(run=_cmd_risk)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-sdc``; the methods listed in the help are read from
    ``polars_sdc.microagg.METHODS`` when it is built.

    >>> args = build_parser().parse_args(["anonymize", "in.csv", "out.parquet", "--k", "3", "--on", "a,b"])
    >>> args.k, args.on, args.method
    (3, 'a,b', 'mdav')
    """
    methods = ", ".join(_methods())
    parser = _Parser(
        prog=PROG,
        description="Statistical disclosure control for Polars: k-anonymous microaggregation of tables.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser(
        "demo",
        help="microaggregate the embedded census data and report the loss",
        description="Microaggregate the CASC census benchmark (1080 x 13, all columns z-scored), "
        "print rows, groups, smallest group, SSE/SST and time, and write the protected file.",
    )
    demo.add_argument("--out", metavar="PATH", help="output .parquet or .csv (default census_k<K>.parquet)")
    demo.add_argument("--k", type=_int, default=5, help="minimum group size (default 5)")
    demo.add_argument("--method", default="mdav", help=f"partition method: {methods} (default mdav)")
    demo.add_argument(
        "--refine", choices=("mil", "none"), default="mil",
        help="post-optimise the groups by MIL, thesis 4.2 (default mil; none: the method alone)",
    )
    demo.set_defaults(run=_cmd_demo)

    anon = sub.add_parser(
        "anonymize",
        help="microaggregate a CSV or Parquet file",
        description="Replace the --on columns of IN by their group means under a k-partition "
        "and write OUT (.csv or .parquet); every other column and the row order are kept.",
    )
    anon.add_argument("input", metavar="IN", help="input .csv or .parquet")
    anon.add_argument("output", metavar="OUT", help="output .csv or .parquet")
    anon.add_argument("--k", type=_int, required=True, help="minimum group size")
    anon.add_argument(
        "--on", required=True, metavar="COLS",
        help="quasi-identifier columns to mask, comma-separated: numeric ones get group means, "
        "String/Categorical ones the group's most frequent value",
    )
    anon.add_argument("--by", metavar="COLS", help="strata columns, comma-separated; each stratum is partitioned alone")
    anon.add_argument(
        "--merge-small-strata", action="store_true",
        help="pool the strata with fewer than k rows instead of stopping with an error",
    )
    anon.add_argument("--method", default="mdav", help=f"partition method: {methods} (default mdav)")
    anon.add_argument(
        "--refine", choices=("mil", "anneal", "none"), default="none",
        help="post-optimise the groups: mil (thesis 4.2) or anneal (slower, lower loss); default none",
    )
    anon.add_argument("--order", choices=("npn", "grid", "vgrid", "kd", "kd-mdav"),
                      help="MHM path ordering (--method mhm; kd-mdav for large files; default npn)")
    anon.add_argument("--gamma", type=float, help="V-MDAV growth factor (--method vmdav; default 1.0)")
    anon.add_argument("--ordinal", metavar="COLS", help="--on columns compared by rank (numeric or Enum)")
    anon.add_argument("--weights", metavar="COL=W,...", help="per-column weights of the product distance")
    anon.add_argument(
        "--integers", choices=("round", "float"), default="round",
        help="integer columns: keep the dtype, mean rounded half to even (default), or Float64 means",
    )
    anon.add_argument(
        "--no-standardize", dest="standardize_off", action="store_true",
        help="partition the raw values instead of z-scores",
    )
    anon.add_argument("--group-column", metavar="NAME", help="also write the group ids in column NAME")
    anon.add_argument(
        "--null-values", metavar="TOKENS",
        help="CSV tokens read as missing, comma-separated (e.g. n/a,NA); a numeric --on column holding "
        "any other non-number is an error",
    )
    anon.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="spinner on stderr (default: only when run in a terminal)",
    )
    anon.set_defaults(run=_cmd_anonymize)
    _add_risk_parser(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    first = next((line.strip() for line in text.splitlines() if line.strip()), text)
    if isinstance(exc, (SDCError, _UsageError, FileNotFoundError)):
        return first
    return f"{type(exc).__name__}: {first}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``polars-sdc`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code:
    0 on success, 2 on any error (one line on stderr)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except SystemExit as exc:  # --help / --version from argparse
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (SDCError, _UsageError, OSError, pl.exceptions.PolarsError, ValueError, TypeError) as exc:
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
