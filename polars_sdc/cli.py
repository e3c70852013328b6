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
- ``polars-sdc recode IN OUT --column C [--column ...] --p P [--sep S]``: minimum-frequency
  global recoding (``lf.sdc.recode``, Sano & Hattori Fig. 1) of categorical columns; prints
  the categories before and after and the smallest class on the recoded columns.
- ``polars-sdc noise IN OUT --on COLS (--phi X | --k K [--m M]) --seed S [--key COL]``: Laplace
  noise (``lf.sdc.laplace``, Hasegawa et al.); prints the phi used per column (with ``--k``:
  ``lf.sdc.laplace_scale``, the Pk-anonymity scale) for ``reconstruct_gmm(phi=...)``.
- ``polars-sdc loss ORIG MASKED --on COLS [--measure ild|sse|classic|all]``: ILD per column,
  SSE/SST and the classic measures of a row-aligned release (same rows, same order).
- ``polars-sdc risk FILE --on COLS [--weight COL] [--alpha A] [--threshold T] [--no-suda]``:
  print the disclosure risk of a file (``lf.sdc.risk``).
- ``polars-sdc report ORIG MASKED --on COLS [--numeric COLS] [--sensitive COL] [--weight COL]
  --out report.html``: the release report (``polars_sdc.report``) as one HTML page.

``anonymize``, ``recode``, ``noise``, ``loss`` and ``risk`` take ``--report FILE.json``: a
machine-readable summary (rows, classes, SSE/SST, risk, phi, parameters, versions, timings),
written atomically (temporary file, then rename). Releases are written the same way, and an
output that is the input (same path, a symlink or a hard link) is refused. ``--progress``
shows a bar with an ETA on stderr (default: only when stderr is a terminal and ``CI`` is unset).

Any error (bad input, missing file, unknown extension, Polars errors) is printed as one
line ``polars-sdc: error: ...`` on stderr with exit code 2, never as a traceback.

One module on purpose (~920 lines): the seven subcommands share the path checks (same file,
links), the scan/sink and temp-file-then-rename writes, the error mapping and the JSON report;
each subcommand itself is a short function over the library's public API.

>>> main(["demo", "--k", "0"])
2
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from ._columns import did_you_mean
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


def _weights(text: str, flag: str = "--weights") -> dict[str, float]:
    """``col=w,col=w`` -> {col: w}."""
    what = flag.lstrip("-").rstrip("s").upper()
    out = {}
    for part in _columns(text):
        name, sep, value = part.partition("=")
        if not sep or not name.strip():
            raise _UsageError(f"{flag} {text!r}: expected COL={what} pairs separated by commas")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise _UsageError(f"{flag}: {what.lower()} of {name.strip()!r} must be a number, got {value!r}") from None
    return out


def _methods() -> list[str]:
    from .microagg import METHODS

    return sorted(METHODS)


def _columns(text: str) -> list[str]:
    cols = [c.strip() for c in text.split(",")]
    if not all(cols):
        raise _UsageError(f"empty column name in {text!r}; give names separated by commas")
    return cols


def _exact_names(names: Any, schema: Any) -> Any:
    """Column names as the frame spells them: a name typed without the spaces a CSV header
    gives it (``a, b`` makes a column ' b'; ``--on a,b`` strips what is typed) is the one column
    of ``schema`` that equals it once stripped, when no column has the name itself. A name, a
    list of names, or anything else (returned as is).

    >>> _exact_names(["a", "b"], {"a": 0, " b": 0}), _exact_names("c", {"c": 0, " c": 0})
    (['a', ' b'], 'c')
    """
    if isinstance(names, list):
        return [_exact_names(n, schema) for n in names]
    if not isinstance(names, str) or names in schema:
        return names
    spaced = [c for c in schema if c.strip() == names]
    return spaced[0] if len(spaced) == 1 else names


def _household_columns(text: str | None) -> list[str] | None:
    """``--household-columns``: None when not given (detected), ``""`` declares every masked
    column person-level (``household_columns=[]``), else the names.

    >>> _household_columns(None), _household_columns(""), _household_columns("a, b")
    (None, [], ['a', 'b'])
    """
    if text is None:
        return None
    return _columns(text) if text.strip() else []


def _null_values(args: argparse.Namespace) -> list[str] | None:
    """The ``--null-values`` tokens as a list (None when not given)."""
    return _columns(args.null_values) if args.null_values else None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _no_stdio(path: Any, role: str) -> None:
    """``-`` (stdin / stdout) refused by name: every command reads its input lazily by its
    extension and writes through a temporary file renamed into place (read back first), which
    a pipe cannot do."""
    if str(path) == "-":
        what = ("writing to stdout" if role in ("output", "report", "sign-off", "--out", "--report")
                else "reading from stdin")
        raise _UsageError(f"{role} '-': {what} is not supported; give a file path")


def _format(path: str | Path, role: str) -> str:
    _no_stdio(path, role)
    ext = Path(path).suffix.lower()
    try:
        return _FORMATS[ext]
    except KeyError:
        raise _UsageError(
            f"{role} file {str(path)!r}: unknown extension {ext or '(none)'!r}; use .csv or .parquet"
        ) from None


def _scan(path: str, null_values: Sequence[str] | None = None, role: str = "input") -> pl.LazyFrame:
    """The one reader of every subcommand's input files: a .csv (checked by
    :func:`_check_csv_shape`) or .parquet file as a LazyFrame. ``role``: how an error names
    the file (``"input"``, or the flag that gave it, e.g. ``"--steps"``)."""
    fmt = _format(path, role)
    if Path(path).is_dir():
        raise _UsageError(f"{role} {path!r} is a directory; give a .csv or .parquet file")
    if not Path(path).is_file():
        raise FileNotFoundError(f"{role} file {path!r} not found")
    if fmt == "csv":
        _check_csv_shape(path, role)
        return _scan_csv(path, null_values)
    return pl.scan_parquet(path)


def _scan_csv(path: str, null_values: Sequence[str] | None = None) -> pl.LazyFrame:
    """A CSV file as a LazyFrame with inferred dtypes, except that a column inferred as integers
    whose text holds a leading zero or sign ("007", "01234", "+5": codes, ZIPs, ids) stays
    String: as an integer it lost its zeros (an untouched id "007" written back as 7) and two
    codes "01234" and "1234" became one value."""
    nulls = list(null_values) if null_values else None
    lf = pl.scan_csv(path, infer_schema_length=10_000, null_values=nulls)
    ints = [c for c, t in lf.collect_schema().items() if t.is_integer()]
    if not ints:
        return lf
    raw = pl.scan_csv(path, infer_schema=False, null_values=nulls).select(
        pl.col(c).str.contains(r"^\s*(\+|-?0\d)").any().alias(f"_{i}") for i, c in enumerate(ints))
    texts = [c for c, coded in zip(ints, raw.collect().row(0)) if coded]
    if not texts:
        return lf
    return pl.scan_csv(path, infer_schema_length=10_000, null_values=nulls,
                       schema_overrides={c: pl.String for c in texts})


def _check_csv_shape(path: str, role: str = "input") -> None:
    """Refuse a CSV whose header repeats a column name (Polars would rename the second one
    ``age_duplicated_0`` silently) or with a line of more or fewer fields than the header (a
    ragged file: values would shift or be made up as nulls). One pass of Python's ``csv``
    reader (quotes respected; blank lines skipped). ``role``: how the messages name the file
    (:func:`_scan`)."""
    import csv

    what = role if role == "input" else f"{role} file"    # "input 'x.csv'", "--steps file 'log.csv'"
    with open(path, "rb") as fb:   # a byte that is not UTF-8 named with its line (Polars: "invalid utf-8")
        for no, raw in enumerate(fb, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SDCError(f"{what} {path!r}: not UTF-8 (byte 0x{raw[exc.start]:02x} on line {no}); "
                               "convert it, e.g. iconv -f latin1 -t utf-8") from None
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        rows = csv.reader(fh)
        header = next(rows, None)
        if header is None:
            return
        if not any(row for row in rows):   # a header alone: every column would read as String
            raise SDCError(f"{what} {path!r}: the file has a header but no rows; "
                           + ("there is nothing to protect" if role == "input" else "there is nothing to read"))
        fh.seek(0)
        rows = csv.reader(fh)
        next(rows)
        seen: set[str] = set()
        for name in header:
            if name in seen:
                raise SDCError(f"{what} {path!r}: column {name!r} appears twice in the header; "
                               "column names must be unique")
            seen.add(name)
        width = len(header)
        for row in rows:
            if row and len(row) != width:
                raise SDCError(f"{what} {path!r}: line {rows.line_num} has {len(row)} field(s), the header {width}; "
                               "a ragged CSV cannot be read safely")


def _check_numeric_text(lf: pl.LazyFrame, on: Sequence[str] | None) -> pl.LazyFrame:
    """``lf`` with the CSV columns of ``on`` (columns a command masks as numbers) that were read
    as String although every value is a number -- written with a leading zero or a sign ("007",
    "+5", "-05"; :func:`_scan_csv` keeps such columns as text) -- read as numbers (Int64 when
    every value is an integer, else Float64): the user named them as numeric. A column read as
    String although most of its values are numbers holds a stray token (e.g. "n/a"): raise
    naming the column and the first bad value instead of masking it silently as a nominal
    category."""
    schema = lf.collect_schema()
    text = [c for c in on or [] if c in schema and schema[c] == pl.String]
    if not text:
        return lf
    df = lf.select(text).collect()
    numbers = []
    for c in text:
        s = df.get_column(c)
        values = s.drop_nulls()
        parsed = values.str.strip_chars().cast(pl.Float64, strict=False)
        good = int(parsed.is_not_null().sum())
        if good and good == values.len():
            ints = values.str.strip_chars().cast(pl.Int64, strict=False).is_not_null().all()
            numbers.append(pl.col(c).str.strip_chars().cast(pl.Int64 if ints else pl.Float64))
        elif good and 2 * good >= values.len():
            bad_at = (s.is_not_null() & s.str.strip_chars().cast(pl.Float64, strict=False).is_null()).arg_true()
            row = int(bad_at[0])
            raise SDCError(
                f"column {c!r}: value {s[row]!r} (row {row + 1}) is not a number, though {good} of "
                f"{values.len()} values are; fix the file or pass --null-values {s[row]!r}"
            )
    return lf.with_columns(numbers) if numbers else lf


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
    if not os.path.isdir(folder):
        raise _UsageError(f"output {target!r}: the directory {folder!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part", dir=folder)
    os.close(fd)
    return tmp


def _atomic_write(target: str, write: Callable[[str], None]) -> None:
    """The one way the CLI writes a file: ``write(tmp)`` to a fresh temporary file next to
    ``target``, its permission bits set, then renamed over ``target`` (atomic: a reader never
    sees half a file; a symlink at ``target`` is replaced, never written through). The caller
    has refused a target that is an input (:func:`_check_target`)."""
    tmp = _temp_path(target)
    try:
        write(tmp)
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _write(df: pl.DataFrame, path: str) -> None:
    fmt = _format(path, "output")
    _atomic_write(path, (lambda tmp: df.write_csv(tmp)) if fmt == "csv" else (lambda tmp: df.write_parquet(tmp)))


def _with_progress(label: str, work: Callable[[], T], *, enabled: bool | None = None, delay: float = 0.5) -> T:
    """Run ``work()``; when stderr is a terminal (and ``CI`` is unset) and it takes longer than
    ``delay`` seconds, show a spinner with the elapsed time on stderr (erased when done)."""
    if enabled is None:
        enabled = _progress_on(None)
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


def _progress_on(flag: bool | None) -> bool:
    """``--progress`` / ``--no-progress``, else on only when stderr is a terminal and ``CI``
    is unset (never in a pipe or a CI log)."""
    from .progress import stderr_is_terminal

    return stderr_is_terminal() if flag is None else bool(flag)


def _check_target(path: str, role: str, inputs: Sequence[str]) -> None:
    """A file the CLI will write: not a directory, in an existing directory, and not one of
    the ``inputs`` (same path, a symlink or a hard link to it)."""
    if os.path.isdir(path):
        raise _UsageError(f"{role} {path!r} is a directory; give a file name")
    if path.endswith(("/", os.sep)):   # 'out.parquet/': a directory's name (the rename failed late, with Python's error)
        raise _UsageError(f"{role} {path!r} ends with a path separator; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _UsageError(f"{role} {path!r}: the directory {folder!r} does not exist")
    for src in inputs:
        if _same_file(src, path):
            raise _UsageError(
                f"{role} file must differ from the input file (it is the same file, a link or a symlink to it)"
            )


def _check_paths(inputs: Sequence[str], output: str | None, report: str | None) -> None:
    """Refuse, before any work, an output or report that is an input (or each other), a
    directory, or has an unknown extension."""
    targets = [(output, "output")] if output is not None else []
    if report is not None:
        _no_stdio(report, "--report")
        if not report.lower().endswith(".json"):
            raise _UsageError(f"--report {report!r}: the report is a .json file")
        targets.append((report, "report"))
    if output is not None:
        _format(output, "output")
    for path, role in targets:
        _check_target(path, role, inputs)
    if output is not None and report is not None and _same_file(output, report):
        raise _UsageError("--report must differ from the output file")


def _read_back(path: str, fmt: str) -> pl.LazyFrame:
    return _scan_csv(path) if fmt == "csv" else pl.scan_parquet(path)


def _sink_checked(frame: pl.LazyFrame, output: str, check: Callable[[pl.LazyFrame], T],
                  progress: Callable[[Callable[[], None]], None] | None = None) -> tuple[T, float]:
    """Sink ``frame`` to a temporary file next to ``output``, run ``check`` on it read back
    (it may raise: then nothing is written), and rename it over ``output``. Returns the
    check's value and the seconds the sink took."""
    fmt = _format(output, "output")
    got: dict[str, Any] = {}

    def write(tmp: str) -> None:
        t0 = time.perf_counter()
        if progress is None:
            _sink(frame, tmp, fmt)
        else:
            progress(lambda: _sink(frame, tmp, fmt))
        got["elapsed"] = time.perf_counter() - t0
        got["value"] = check(_read_back(tmp, fmt))   # may raise: then nothing is written

    _atomic_write(output, write)
    return got["value"], got["elapsed"]


def _plain(value: Any) -> Any:
    """``value`` as strict JSON: NaN / infinity -> null, numpy scalars -> Python numbers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _versions() -> dict[str, str]:
    import platform

    import numpy

    return {"polars_sdc": _version(), "polars": pl.__version__, "numpy": numpy.__version__,
            "python": platform.python_version()}


def _write_report(path: str | None, command: str, args: argparse.Namespace, parameters: dict[str, Any],
                  results: dict[str, Any], timings: dict[str, float], started: float | None = None) -> None:
    """Write the ``--report`` JSON atomically (a temporary file in the same folder, renamed);
    ``started`` (a ``time.perf_counter()``) adds the ``total`` seconds since then."""
    if path is None:
        return
    if started is not None:
        timings = {**timings, "total": time.perf_counter() - started}
    from datetime import datetime, timezone

    doc = {
        "command": command,
        "files": {k: getattr(args, k) for k in ("input", "output", "original", "masked") if getattr(args, k, None)},
        "parameters": parameters,
        **results,
        "seconds": {k: round(v, 6) for k, v in timings.items()},
        "versions": _versions(),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(_plain(doc), fh, indent=2, ensure_ascii=False, allow_nan=False)
            fh.write("\n")

    _atomic_write(path, write)


def _parse_phi(text: str) -> float | dict[str, float]:
    """``--phi 2.5`` (every column) or ``--phi age=14,fnlwgt=19000`` (per column)."""
    if "=" in text:
        return _weights(text, flag="--phi")
    try:
        return float(text)
    except ValueError:
        raise _UsageError(f"--phi: expected a number or COL=PHI pairs, got {text!r}") from None


def _group_stats(frame: pl.DataFrame | pl.LazyFrame, keys: Sequence[str], household: str | None = None
                 ) -> tuple[int, int]:
    """(number of groups, smallest group size) of the rows sharing all ``keys`` values; the
    size counts distinct ``household`` ids when given (the unit a household release protects)."""
    count = pl.len() if household is None else pl.col(household).n_unique()
    sizes = frame.lazy().group_by(list(keys)).agg(count.alias("len"))
    row = sizes.select(pl.len().alias("groups"), pl.col("len").min().alias("smallest")).collect().row(0)
    return int(row[0]), int(row[1] or 0)


# -- subcommands --------------------------------------------------------------------------
def _cmd_demo(args: argparse.Namespace) -> int:
    from . import datasets

    out = args.out if args.out is not None else f"census_k{args.k}.parquet"
    _format(out, "output")
    _check_target(out, "output", [])
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
    t_start = time.perf_counter()
    on = _columns(args.on)
    by = _columns(args.by) if args.by else None
    null_values = _null_values(args)
    _check_paths([args.input], args.output, args.report)
    lf = _scan(args.input, null_values)
    schema = lf.collect_schema()
    on, by = _exact_names(on, schema), _exact_names(by, schema)
    if _format(args.input, "input") == "csv":
        lf = _check_numeric_text(lf, on)
    options: dict = {}
    if args.order is not None:
        options["order"] = args.order
    if args.gamma is not None:
        options["gamma"] = args.gamma
    keys = on + (by or [])
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
        progress=_progress_on(args.progress),
        household=args.household,
        household_columns=_household_columns(args.household_columns),
        merge_small_patterns=args.merge_small_patterns,
        **options,
    )

    unit = ("record", "records") if args.household is None else ("household", "households")

    def check(result: pl.LazyFrame) -> dict[str, Any]:
        # the release read back: its equivalence classes on the masked and strata columns,
        # i.e. the k-anonymity a recipient can check (and the group sizes if written), counting
        # households with --household
        t0 = time.perf_counter()
        n_classes, smallest = _group_stats(result, keys, args.household)
        if smallest < args.k:
            raise SDCError(
                f"the release has an equivalence class of {smallest} {unit[0]}(s) on {','.join(keys)}, "
                f"fewer than k = {args.k}; nothing written"
            )
        out: dict[str, Any] = {"classes": n_classes, "smallest_class": smallest}
        if args.group_column:
            out["groups"], out["smallest_group"] = _group_stats(result, [args.group_column], args.household)
        out["rows"] = result.select(pl.len()).collect().item()
        numeric = [c for c in on if lf.collect_schema()[c].is_numeric()]
        # structural nulls: SSE/SST over the non-null values (its .skipped counts the rest)
        out["sse_sst"] = lf.sdc.ilssdm(numeric, masked=result.select(numeric)) if numeric else None
        out["global_risk"] = result.sdc.global_risk(keys)["global_risk"]
        out["measure_seconds"] = time.perf_counter() - t0
        return out

    res, elapsed = _sink_checked(masked, args.output, check)
    if args.group_column:
        n_groups, smallest, what = res["groups"], res["smallest_group"], "groups"
    else:
        n_groups, smallest, what = res["classes"], res["smallest_class"], "equivalence classes"
    print(
        f"wrote {args.output}: {res['rows']} rows, {len(on)} column(s) microaggregated by {args.method} "
        f"(k = {args.k}{', by ' + ','.join(by) if by else ''}), {n_groups} {what}, "
        f"smallest {smallest}{'' if args.household is None else ' households'}, {elapsed:.2f} s"
    )
    loss = res["sse_sst"]
    skipped = f", {loss.skipped} null values skipped" if getattr(loss, "skipped", 0) else ""
    loss_text = (f"SSE/SST {100 * loss:.4f} % (numeric --on columns, z-scored{skipped})" if loss is not None
                 else "SSE/SST n/a")
    print(f"  {loss_text}; global risk {100 * res['global_risk']:.4g} % (mean individual risk on the released "
          f"classes of {','.join(keys)}, unweighted: `polars-sdc risk --on {','.join(keys)}` prints the same)")
    parameters = {
        "k": args.k, "on": on, "by": by, "method": args.method, "refine": args.refine, "order": args.order,
        "gamma": args.gamma, "ordinal": _columns(args.ordinal) if args.ordinal else [],
        "weights": _weights(args.weights) if args.weights else None, "integers": args.integers,
        "standardize": not args.standardize_off, "merge_small_strata": args.merge_small_strata,
        "group_column": args.group_column, "null_values": null_values,
        "household": args.household, "merge_small_patterns": args.merge_small_patterns,
        "household_columns": _household_columns(args.household_columns),
    }
    results = {
        "rows": res["rows"], "class_columns": keys, "classes": res["classes"], "smallest_class": res["smallest_class"],
        "groups": res.get("groups", res["classes"]), "smallest_group": res.get("smallest_group", res["smallest_class"]),
        "smallest_counts": unit[1],
        "sse_sst": loss, "global_risk": res["global_risk"],
    }
    _write_report(args.report, "anonymize", args, parameters, results, {
        "microaggregate_and_write": elapsed, "measure": res["measure_seconds"],
    }, started=t_start)
    return 0


def _cmd_noise(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    on = _columns(args.on)
    null_values = _null_values(args)
    _check_paths([args.input], args.output, args.report)
    if (args.phi is None) == (args.k is None):
        raise _UsageError("give exactly one of --phi (the Laplace scale) or --k (Pk-anonymity)")
    if args.m is not None and args.k is None:
        raise _UsageError("--m goes with --k (the number of attributes released together)")
    lf = _scan(args.input, null_values)
    schema = lf.collect_schema()
    on, key, household = (_exact_names(v, schema) for v in (on, args.key, args.household))
    if _format(args.input, "input") == "csv":
        lf = _check_numeric_text(lf, on)
    t0 = time.perf_counter()
    m = 1 if args.m is None else args.m
    if args.k is not None:  # the Pk-anonymity scale, computed once and passed on: the phi printed is the phi used
        phi: Any = lf.sdc.laplace_scale(on, k=args.k, m=m)
    else:
        given = _parse_phi(args.phi)
        phi = {_exact_names(c, schema): v for c, v in given.items()} if isinstance(given, dict) else {c: given for c in on}
        missing = [c for c in on if c not in phi]
        if missing:
            raise _UsageError(f"--phi gives no scale for column {missing[0]!r}")
        phi = {c: phi[c] for c in on}
    scale_seconds = time.perf_counter() - t0
    noisy = lf.sdc.laplace(phi, on, seed=args.seed, key=key, clamp=args.clamp, household=household,
                           household_columns=_exact_names(_household_columns(args.household_columns), schema))

    def check(result: pl.LazyFrame) -> dict[str, Any]:
        t1 = time.perf_counter()
        return {"rows": result.select(pl.len()).collect().item(),
                "sse_sst": lf.sdc.ilssdm(on, masked=result.select(on)),
                "measure_seconds": time.perf_counter() - t1}

    res, elapsed = _sink_checked(noisy, args.output, check)
    how = f"Pk-anonymity k = {args.k}, m = {m}" if args.k is not None else "given"
    print(f"wrote {args.output}: {res['rows']} rows, Laplace noise on {len(on)} column(s), seed {args.seed}"
          f"{', key ' + args.key if args.key else ''}, {elapsed:.2f} s")
    for c in on:
        print(f"  phi {c} = {phi[c]:.6g} ({how})")
    print(f"  SSE/SST {100 * res['sse_sst']:.4f} % (z-scored); reconstruct with "
          f"df.sdc.reconstruct_gmm(K, on=..., phi={{...}}) using the phi above")
    parameters = {"on": on, "k": args.k, "m": m if args.k is not None else None, "seed": args.seed,
                  "key": args.key, "clamp": args.clamp, "null_values": null_values,
                  **({"household": args.household} if args.household else {}),
                  **({"household_columns": _household_columns(args.household_columns)}
                     if args.household_columns is not None else {})}
    results = {"rows": res["rows"], "phi": phi, "phi_from": "laplace_scale" if args.k is not None else "--phi",
               "sse_sst": res["sse_sst"]}
    _write_report(args.report, "noise", args, parameters, results, {
        "laplace_scale": scale_seconds, "noise_and_write": elapsed, "measure": res["measure_seconds"],
    }, started=t_start)
    return 0


def _cmd_loss(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    on = _columns(args.on)
    null_values = _null_values(args)
    _check_paths([args.original, args.masked], None, args.report)
    orig_lf, masked_lf = _scan(args.original, null_values), _scan(args.masked, null_values)
    on = _exact_names(on, orig_lf.collect_schema())
    # numbers written with a leading zero or sign ('+5') as the masking commands read them
    orig_lf, masked_lf = (_check_numeric_text(f, on) if _format(p, "input") == "csv" else f
                          for f, p in ((orig_lf, args.original), (masked_lf, args.masked)))
    if args.label:
        args.label = _exact_names(args.label, orig_lf.collect_schema())
    n_orig = orig_lf.select(pl.len()).collect().item()
    n_masked = masked_lf.select(pl.len()).collect().item()
    if n_orig != n_masked:
        raise SDCError(
            f"ORIG has {n_orig} rows and MASKED {n_masked}; the loss compares them row by row "
            "(same rows, same order)"
        )
    for name, path, frame, cols in (("ORIG", args.original, orig_lf, on + ([args.label] if args.label else [])),
                                    ("MASKED", args.masked, masked_lf, on)):
        names = frame.collect_schema().names()
        missing = [c for c in cols if c not in names]
        if missing:
            raise SDCError(f"column {missing[0]!r}: not in {name} ({path}){did_you_mean(missing[0], names)}")
    need = on + ([args.label] if args.label and args.label not in on else [])
    orig, masked = orig_lf.select(need).collect(), masked_lf.select(on).collect()
    measures = {"ild", "sse", "classic"} if args.measure == "all" else {args.measure}
    show = _progress_on(args.progress)
    results: dict[str, Any] = {"rows": n_orig}
    timings: dict[str, float] = {}
    print(f"loss of {args.masked} against {args.original} on {','.join(on)} ({n_orig} rows, row by row)")
    ild = None
    if "ild" in measures:
        t0 = time.perf_counter()
        rep = ild = orig.sdc.ild_report(masked, on=on, progress=show)
        timings["ild"] = time.perf_counter() - t0
        results["ild"] = {"overall": rep.ild, "by_column": rep.by_column}
        print("  ILD (Akiyama & Wada; 0 = nothing lost, 1 = everything)")
        width = max(len(c) for c in [*rep.by_column, "(overall)"])
        for c, v in rep.by_column.items():
            print(f"    {c:<{width}}  {v:.6g}")
        nulls = f"  ({rep.skipped_overall} rows with nulls skipped)" if rep.skipped_overall else ""
        print(f"    {'(overall)':<{width}}  {rep.ild:.6g}{nulls}")
    if "sse" in measures:
        numeric = [c for c in on if orig.schema[c].is_numeric()]
        t0 = time.perf_counter()
        sse = orig.sdc.ilssdm(numeric, masked=masked.select(numeric)) if numeric else None
        timings["sse"] = time.perf_counter() - t0
        results["sse_sst"] = sse
        results["sse_columns"] = numeric
        text = f"{100 * sse:.4f} %" if sse is not None else "n/a (no numeric --on column)"
        if sse is not None and sse.skipped:
            text += f" ({sse.skipped} null values skipped)"
        print(f"  SSE/SST (numeric columns, z-scored)  {text}")
    if "classic" in measures:
        t0 = time.perf_counter()
        rep = orig.sdc.loss_report(masked, on=on, k=args.k, label=args.label, progress=show, ild_report=ild)
        timings["classic"] = time.perf_counter() - t0
        frame = rep.to_frame()
        results["classic"] = {m: {"value": v, "normalized": z, "meaning": txt} for m, v, z, txt in frame.iter_rows()}
        print("  classic measures     value  normalized (0 = no loss, 1 = all lost; ilssdm: 1 = column means)")
        for m, v, z, txt in frame.iter_rows():
            value = "n/a" if v is None else format(v, ".6g")
            norm = "" if z is None else format(z, ".4f")
            print(f"    {m:<13} {value:>12} {norm:>8}  {txt}")
    parameters = {"on": on, "measure": args.measure, "k": args.k, "label": args.label, "null_values": null_values}
    _write_report(args.report, "loss", args, parameters, results, timings, started=t_start)
    return 0


def _cmd_risk(args: argparse.Namespace) -> int:
    on = _columns(args.on)
    _check_paths([args.input], None, args.report)
    lf = _scan(args.input)
    schema = lf.collect_schema()
    on = _exact_names(on, schema)
    args.weight, args.household = _exact_names(args.weight, schema), _exact_names(args.household, schema)
    t0 = time.perf_counter()
    result = _with_progress(
        "measuring risk",
        lambda: lf.sdc.risk(on, weight=args.weight, alpha=args.alpha, suda=args.suda, threshold=args.threshold,
                            household=args.household, alpha_rule=args.alpha_rule, suppressed_as=args.suppressed_as),
        enabled=args.progress,
    )
    elapsed = time.perf_counter() - t0
    print(f"disclosure risk of {args.input} on keys {', '.join(on)}" + (f", weight {args.weight}" if args.weight else ""))
    from .risk.report import risk_text

    pi = None
    if args.weight:
        pi = lf.select(pl.len() / pl.col(args.weight).cast(pl.Float64).sum()).collect().item()
    print(risk_text(result, alpha=args.alpha, threshold=args.threshold, sampling_fraction=pi))
    print(f"  {'time':<38} {elapsed:.2f} s")
    parameters = {"on": on, "weight": args.weight, "household": args.household, "alpha": args.alpha,
                  "alpha_rule": args.alpha_rule, "threshold": args.threshold, "suda": args.suda,
                  "suppressed_as": args.suppressed_as}
    rows = lf.select(pl.len()).collect().item() if args.report else None
    _write_report(args.report, "risk", args, parameters, {"rows": rows, "risk": result.as_dict()}, {"risk": elapsed})
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .risk.report import report

    _no_stdio(args.out, "--out")
    if not args.out.endswith((".html", ".htm")):
        raise _UsageError(f"--out {args.out}: the report is an .html page")
    on = _columns(args.on)
    numeric = _columns(args.numeric) if args.numeric else None
    _check_target(args.out, "--out", [args.original, args.masked])
    orig, masked = _scan(args.original), _scan(args.masked)
    schema = orig.collect_schema()   # a name typed without a CSV header's spaces: the header's column
    on, numeric = _exact_names(on, schema), _exact_names(numeric, schema)
    # numbers written with a leading zero or sign ('+5') as the masking commands read them
    orig, masked = (_check_numeric_text(f, numeric) if _format(p, "input") == "csv" else f
                    for f, p in ((orig, args.original), (masked, args.masked)))
    for name in ("sensitive", "weight", "household"):
        setattr(args, name, _exact_names(getattr(args, name), schema))
    categorical = _exact_names(_columns(args.categorical), schema) if args.categorical else None
    t0 = time.perf_counter()
    rep = _with_progress(
        "building the report",
        lambda: report(orig, masked, on=on, numeric=numeric, sensitive=args.sensitive, weight=args.weight,
                       steps=_scan(args.steps, role="--steps") if args.steps else None, k=args.k, threshold=args.threshold,
                       household=args.household, alpha=args.alpha, method=args.method,
                       ks=[int(v) for v in _columns(args.ks)], title=args.title,
                       categorical=categorical, suppressed_as=args.suppressed_as),
        enabled=args.progress,
    )
    _atomic_write(args.out, rep.save)
    print(f"wrote {args.out} ({time.perf_counter() - t0:.2f} s)")
    print(f"  {rep.verdict}")
    return 0


_PROGRESS_HELP = "progress bar with an ETA on stderr (default: only when stderr is a terminal and CI is unset)"
_SPINNER_HELP = "spinner on stderr (default: only when run in a terminal)"
_NULL_VALUES_HELP = "CSV tokens read as missing, comma-separated (e.g. ?,n/a,NA)"


def _command(sub: Any, name: str, help: str, description: str, files: Sequence[tuple[str, str, str]]) -> Any:
    """A subcommand with its positional file arguments, given as (dest, METAVAR, help)."""
    parser = sub.add_parser(name, help=help, description=description)
    for dest, metavar, text in files:
        parser.add_argument(dest, metavar=metavar, help=text)
    return parser


def _in_out() -> list[tuple[str, str, str]]:
    return [("input", "IN", "input .csv or .parquet"), ("output", "OUT", "output .csv or .parquet")]


def _orig_masked(masked: str) -> list[tuple[str, str, str]]:
    return [("original", "ORIG", "original .csv or .parquet"), ("masked", "MASKED", masked)]


def _add_on(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--on", required=True, metavar="COLS", help=help)


def _finish(parser: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int], *,
            null_values: str | None = None, progress: str | None = None, report: bool = True) -> None:
    """The options every file command ends with, in this order: --null-values, --progress,
    --report; then the function that runs the command."""
    if null_values is not None:
        parser.add_argument("--null-values", metavar="TOKENS", help=null_values)
    if progress is not None:
        parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help=progress)
    if report:
        parser.add_argument("--report", metavar="FILE.json",
                            help="also write a machine-readable summary (JSON: results, parameters, versions, timings)")
    parser.set_defaults(run=run)


_SUPPRESSED_AS_HELP = ("FILE is a release of `polars-sdc generalize`: a record whose every key is LABEL (its "
                       "--suppressed-as, '*' by default) was suppressed and is read as every key missing "
                       "(default: every value as written)")


def _add_risk_parser(sub: Any) -> None:
    rep = _command(
        sub, "report",
        "write an HTML report of a release's risk before/after masking and its utility",
        "Risk before and after, numeric disclosure, utility, l-diversity/t-closeness, "
        "risk-utility map and SUDA contributions of MASKED against ORIG (same rows, same order).",
        _orig_masked("masked .csv or .parquet"),
    )
    _add_on(rep, "key columns, comma-separated")
    rep.add_argument("--numeric", metavar="COLS", help="numeric columns (record linkage, utility, R-U map)")
    rep.add_argument("--sensitive", metavar="COL", help="sensitive column (l-diversity, t-closeness)")
    rep.add_argument("--weight", metavar="COL", help="sampling-weight column")
    rep.add_argument("--household", metavar="COL", help="household id column (household risk)")
    rep.add_argument("--k", type=int, default=3, help="the target k the verdict and the risk table judge (default 3)")
    rep.add_argument("--threshold", type=float, default=0.1,
                     help="acceptable individual risk, 0..1 (default 0.1 = 10 %%)")
    rep.add_argument("--alpha", type=float, default=1.0, help="weight of a missing-value match, 0..1 (default 1)")
    rep.add_argument("--method", default="mdav", help="microaggregation drawn on the risk-utility map (default mdav)")
    rep.add_argument("--ks", default="3,5,10", metavar="K,K,...", help="k values of the risk-utility map (default 3,5,10)")
    rep.add_argument("--title", default="Disclosure risk and utility of a release", help="the page title")
    rep.add_argument("--steps", metavar="LOG", help="a step log (.csv/.parquet: columns step, parameters, ...)")
    rep.add_argument("--categorical", metavar="COLS",
                     help="further categorical columns (PRAM'd ones, say) compared like the keys, comma-separated")
    rep.add_argument("--out", required=True, metavar="PATH", help="the HTML page to write")
    rep.add_argument("--suppressed-as", metavar="LABEL", help=_SUPPRESSED_AS_HELP)
    _finish(rep, _cmd_report, progress=_SPINNER_HELP, report=False)

    risk = _command(
        sub, "risk",
        "measure the disclosure risk of a CSV or Parquet file",
        "Print k-anonymity violations, individual/global risk (sdcMicro), SUDA2 and "
        "ARX's prosecutor/journalist/marketer risk of FILE on the key columns --on.",
        [("input", "FILE", "input .csv or .parquet")],
    )
    _add_on(risk, "key (quasi-identifier) columns, comma-separated")
    risk.add_argument("--weight", metavar="COL", help="sampling-weight column (weights > 0)")
    risk.add_argument("--household", metavar="COL", help="household id column: household risk too")
    risk.add_argument("--alpha", type=float, default=1.0, help="weight of a missing-value match, 0..1 (default 1)")
    risk.add_argument("--alpha-rule", choices=("safe", "sdcmicro"), default="safe",
                      help="with --alpha < 1: safe keeps a record's risk at least its alpha = 1 value; sdcmicro "
                      "gives sdcMicro's numbers (default safe)")
    risk.add_argument("--threshold", type=float, default=0.1, help="ARX's acceptable record risk (default 0.1)")
    risk.add_argument("--suda", action=argparse.BooleanOptionalAction, default=True, help="SUDA2 scores (default on)")
    risk.add_argument("--suppressed-as", metavar="LABEL", help=_SUPPRESSED_AS_HELP)
    _finish(risk, _cmd_risk, progress=_SPINNER_HELP)


_HOUSEHOLD_COLUMNS_HELP = ("household-level columns, declared (comma-separated): masked once per household, an "
                           "error naming a household where one varies; the others person-level ('' declares every "
                           "column person-level; default: detected)")


def _add_method_parsers(sub: Any) -> None:
    noise = _command(
        sub, "noise",
        "add seeded Laplace noise to numeric columns (prints the phi used)",
        "Laplace(0, phi) noise on the --on columns (Hasegawa et al.): phi given, or from "
        "Pk-anonymity k: phi = 2 m (b - a) / ln((N - 1)/(k - 1)) per column. The noise of row i of "
        "column c depends only on --seed, c and the row's position (or its --key value).",
        _in_out(),
    )
    _add_on(noise, "numeric columns, comma-separated")
    noise.add_argument("--phi", metavar="X", help="Laplace scale: one number, or COL=PHI pairs")
    noise.add_argument("--k", type=_int, help="Pk-anonymity k >= 2: phi from each column's range")
    noise.add_argument("--m", type=_int, help="attributes released together (with --k; default 1)")
    noise.add_argument("--seed", type=_int, required=True, help="seed of the noise (reproducible release)")
    noise.add_argument("--key", metavar="COL", help="unique id column: a row keeps its noise under reordering")
    noise.add_argument("--clamp", action="store_true", help="clip noisy values to each column's observed range")
    noise.add_argument("--household", metavar="COL", help="household id: household-level columns (constant within "
                       "every household) get one draw per household, the same for all members")
    noise.add_argument("--household-columns", metavar="COLS", help=_HOUSEHOLD_COLUMNS_HELP)
    _finish(noise, _cmd_noise, null_values=_NULL_VALUES_HELP)

    loss = _command(
        sub, "loss",
        "information loss of a release against the original (ILD, SSE/SST, classic measures)",
        "Compare MASKED with ORIG row by row (same rows, same order): ILD per column and "
        "overall (Akiyama & Wada, thesis 3.1), SSE/SST of the numeric columns (z-scored, thesis "
        "2.4.1), and DM, NCP, entropy loss, EBIL, CTBIL, CM (thesis 2.4.3) with normalised forms.",
        _orig_masked("released .csv or .parquet, row-aligned with ORIG"),
    )
    _add_on(loss, "columns to compare, comma-separated")
    loss.add_argument("--measure", choices=("ild", "sse", "classic", "all"), default="all",
                      help="which figures (default all)")
    loss.add_argument("--k", type=_int, help="k for the Discernibility Metric (a class below k costs n x size)")
    loss.add_argument("--label", metavar="COL", help="class label column of ORIG for the Classification Metric")
    _finish(loss, _cmd_loss, null_values=_NULL_VALUES_HELP, progress=_PROGRESS_HELP)


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
        description="Statistical disclosure control for Polars on CSV and Parquet tables: "
        "microaggregation, local suppression, PRAM, rank swapping, noise, global recoding, ARX's "
        "generalisation, record swapping, a recipe of steps; information loss and disclosure risk.",
        epilog="exit status: 0 success; 2 an error (one line on stderr); 130 interrupted. "
        "Each command's options: polars-sdc COMMAND --help.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = _command(
        sub, "demo",
        "microaggregate the embedded census data and report the loss",
        "Microaggregate the CASC census benchmark (1080 x 13, all columns z-scored), "
        "print rows, groups, smallest group, SSE/SST and time, and write the protected file.",
        [],
    )
    demo.add_argument("--out", metavar="PATH", help="output .parquet or .csv (default census_k<K>.parquet)")
    demo.add_argument("--k", type=_int, default=5, help="minimum group size (default 5)")
    demo.add_argument("--method", default="mdav", help=f"partition method: {methods} (default mdav)")
    demo.add_argument(
        "--refine", choices=("mil", "none"), default="mil",
        help="post-optimise the groups by MIL, thesis 4.2 (default mil; none: the method alone)",
    )
    _finish(demo, _cmd_demo, report=False)

    anon = _command(
        sub, "anonymize",
        "microaggregate a CSV or Parquet file",
        "Replace the --on columns of IN by their group means under a k-partition "
        "and write OUT (.csv or .parquet); every other column and the row order are kept.",
        _in_out(),
    )
    anon.add_argument("--k", type=_int, required=True, help="minimum group size")
    _add_on(
        anon,
        "quasi-identifier columns to mask, comma-separated: numeric ones get group means, "
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
        "--household", metavar="COL",
        help="household id column: every group holds >= k households; household-level --on columns are "
             "microaggregated once per household (docs/households-microaggregation.md)",
    )
    anon.add_argument("--household-columns", metavar="COLS", help=_HOUSEHOLD_COLUMNS_HELP)
    anon.add_argument(
        "--merge-small-patterns", action="store_true",
        help="pool the null patterns with fewer than k rows (their unshared values suppressed) instead of "
             "stopping with an error",
    )
    _finish(
        anon, _cmd_anonymize,
        null_values="CSV tokens read as missing, comma-separated (e.g. n/a,NA); a numeric --on column holding "
        "any other non-number is an error",
        progress=_PROGRESS_HELP + "; rows grouped (mdav, vmdav, mhm), else per --by stratum or the elapsed time",
    )
    _add_method_parsers(sub)
    _add_risk_parser(sub)
    _add_warmup_parser(sub)
    from .commands import add_operation_parsers  # suppress, pram, recode, ..., run: from polars_sdc.operations

    add_operation_parsers(sub)
    return parser


def _add_warmup_parser(sub: Any) -> None:
    from ._warmup import WARMUPS

    warm = _command(
        sub, "warmup",
        "compile every kernel into Numba's cache (Docker images, CI caches, Spark executors)",
        "Run every method once on a tiny frame so that its Numba kernels are compiled and cached "
        "(NUMBA_CACHE_DIR, else __pycache__ next to the package); print the seconds per method.",
        [],
    )
    warm.add_argument("--only", metavar="NAMES", help=f"comma-separated, some of: {', '.join(WARMUPS)}")
    _finish(warm, _cmd_warmup, progress=_PROGRESS_HELP + "; one step per method", report=False)


def _cmd_warmup(args: argparse.Namespace) -> int:
    from ._warmup import warmup

    names = [m.strip() for m in args.only.split(",")] if args.only else None
    t0 = time.perf_counter()
    seconds = warmup(names, progress=_progress_on(args.progress))
    for name, sec in seconds.items():
        print(f"  {name:<20} {sec:7.2f} s")
    print(f"warmed {len(seconds)} methods in {time.perf_counter() - t0:.1f} s")
    return 0


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    first = next((line.strip() for line in text.splitlines() if line.strip()), text)
    if isinstance(exc, (SDCError, _UsageError, FileNotFoundError)):
        return first
    return f"{type(exc).__name__}: {first}"


def _unrecognized(parser: argparse.ArgumentParser, command: str, extra: Sequence[str]) -> str:
    """The message for options a subcommand does not take, with the closest option it does.

    >>> _unrecognized(build_parser(), "generalize", ["--suppresion-limit", "0.1"])
    "generalize: unrecognized arguments: --suppresion-limit 0.1; did you mean '--suppression-limit'? (see `polars-sdc generalize --help`)"
    """
    import difflib

    sub = next(a for a in parser._subparsers._group_actions if isinstance(a, argparse._SubParsersAction))  # type: ignore[union-attr]
    options = list(sub.choices[command]._option_string_actions)
    hints = [m[0] for t in extra if t.startswith("--") for m in [difflib.get_close_matches(t.split("=")[0], options, n=1)]
             if m]
    hint = f"; did you mean {hints[0]!r}?" if hints else ""
    return f"{command}: unrecognized arguments: {' '.join(extra)}{hint} (see `{PROG} {command} --help`)"


def _format_warning(message: Any, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    """A library warning as ``polars-sdc: warning: Category: message`` on one line (Python's
    default adds the library's file, line number and source line). Installed as
    ``warnings.formatwarning`` by :func:`main`, so Python's own ``showwarning`` prints it and a
    caller that records warnings (``pytest.warns``, ``catch_warnings(record=True)``) still gets them.

    >>> _format_warning("no donor   found", UserWarning, "x.py", 1)
    'polars-sdc: warning: UserWarning: no donor found\\n'
    """
    text = " ".join(str(message).split())
    return f"{PROG}: warning: {category.__name__}: {text}\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``polars-sdc`` with ``argv`` (default ``sys.argv[1:]``); returns the exit code:
    0 on success, 2 on any error (one line on stderr)."""
    import warnings

    try:
        # a warning is one line too, not Python's file:line and source; catch_warnings does not
        # restore formatwarning, so the finally does
        formatwarning = warnings.formatwarning
        with warnings.catch_warnings():
            warnings.formatwarning = _format_warning
            if not sys.warnoptions:   # a recipe's old option name is said (Python hides DeprecationWarnings)
                from ._signature import SDCDeprecationWarning

                warnings.simplefilter("default", SDCDeprecationWarning)
            try:
                parser = build_parser()
                args, extra = parser.parse_known_args(argv)
                if extra:
                    raise _UsageError(_unrecognized(parser, args.command, extra))
                return int(args.run(args))
            finally:
                warnings.formatwarning = formatwarning
    except SystemExit as exc:  # --help / --version from argparse
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (SDCError, _UsageError, OSError, pl.exceptions.PolarsError, ValueError, TypeError, Warning) as exc:
        # a Warning: a library warning made an error by the caller (python -W error, PYTHONWARNINGS)
        print(f"{PROG}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
