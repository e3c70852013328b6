"""The ``polars-sdc`` subcommands generated from :mod:`polars_sdc.operations` (one skeleton),
and ``polars-sdc run RECIPE IN OUT``.

Every operation with a ``command`` gets ``polars-sdc <command> IN OUT`` with one flag per
option: the Python name with dashes (``--key-var``), its default and help from the
declaration, columns as comma-separated names (or the flag repeated), numbers per column as
``COL=X`` pairs, structured values as JSON. The skeleton is the same for all: check the paths
(before any work), scan IN lazily, run ``lf.sdc.<operation>(...)``, sink to a temporary file
next to OUT, measure what changed on the file read back, rename it over OUT, print a summary
and, with ``--report FILE.json``, write it as JSON (:mod:`polars_sdc.cli`'s checked writers).

>>> from polars_sdc import cli
>>> args = cli.build_parser().parse_args(["suppress", "in.csv", "out.csv", "--k", "3", "--on", "a,b"])
>>> options(args.operation, args)
{'k': 3, 'on': ['a', 'b']}
"""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

import polars as pl

from . import cli
from .operations import OPERATIONS, Option, Operation

#: metavars of the option kinds
_METAVARS = {"int": "N", "float": "X", "str": "TEXT", "column": "COL", "columns": "COLS", "number_or_map": "X|COL=X,...",
             "map": "COL=X,...", "floats_or_map": "X,X,...|JSON", "ints": "N,N,...", "json": "JSON"}


def _help(o: Option) -> str:
    text = o.help.replace("%", "%%")              # argparse formats help texts with %
    if o.role:
        text += f" (role: {o.role})"
    if o.required:
        return text + " (required)"
    if o.name == "seed" and o.default is None:   # run_operation draws one and prints it
        return text + " (default: drawn from the operating system, printed and reported)"
    if o.default is None or o.default == () or o.kind == "bool" and o.default is False:
        return text
    if o.kind == "bool":
        return text + " (default on)"
    return f"{text} (default {o.default})"


def add_operation_parsers(sub: Any) -> None:
    """One subcommand per declared operation with a ``command``, and ``run``."""
    for op in OPERATIONS.values():
        if op.command:
            _add_operation(sub, op)
    _add_run(sub)


def _add_operation(sub: Any, op: Operation) -> None:
    parser = cli._command(sub, op.command, op.summary,
                          f"{op.summary[0].upper()}{op.summary[1:]}: df.sdc.{op.method}(...) on IN, written to OUT "
                          "(every other column and the row order kept). The options are the Python function's, "
                          "with the same names (dashes for underscores) and defaults.", cli._in_out())
    for o in op.options:
        if o.name == "null_values":  # the skeleton's --null-values does both (CSV tokens, and the option)
            continue
        flags = ["--" + o.name.replace("_", "-"), *op.aliases.get(o.name, ())]
        kwargs: dict[str, Any] = {"dest": o.name, "help": _help(o), "default": argparse.SUPPRESS}
        if o.kind == "bool":
            kwargs["action"] = argparse.BooleanOptionalAction
        elif o.kind == "choice":
            kwargs["choices"] = o.choices
        else:
            kwargs["metavar"] = _METAVARS[o.kind]
            kwargs["type"] = {"int": cli._int, "float": float}.get(o.kind, str)
            if o.kind == "columns" or o.name == "hierarchies":   # repeatable (a path may hold a comma)
                kwargs["action"] = "append"
        old_names = [old for old, new in op.renamed.items() if new == o.name]
        kwargs["required"] = o.required and not old_names   # else checked in options(): the old flag counts
        parser.add_argument(*flags, **kwargs)
        for old in old_names:   # a deprecated name: still read
            parser.add_argument("--" + old.replace("_", "-"), dest=o.name, help=argparse.SUPPRESS,
                                default=argparse.SUPPRESS, action=_DeprecatedFlag, new_flag=flags[0],
                                append=kwargs.get("action") == "append", type=kwargs.get("type", str))
    null_help = cli._NULL_VALUES_HELP
    if "null_values" in op.names():
        null_help += "; also the categories read as missing (the null_values option)"
    cli._finish(parser, run_operation, null_values=null_help)
    parser.set_defaults(operation=op)


class _DeprecatedFlag(argparse.Action):
    """The flag of a renamed option (``--columns`` of recode, now ``--on``): read as the new
    one, with a note on stderr naming it."""

    def __init__(self, option_strings: Any, dest: str, *, new_flag: str, append: bool, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new_flag, self.append = new_flag, append

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None) -> None:
        import sys

        print(f"polars-sdc: {option_string} is deprecated; use {self.new_flag} (the same option)", file=sys.stderr)
        used = dict(getattr(namespace, "_deprecated_flags", {}))
        before = getattr(namespace, self.dest, None)
        if self.append:
            values = [*(before or []), values]
        n_old = used.get(self.dest, (None, None, 0, False))[2] + 1   # values this old flag gave so far
        used[self.dest] = (option_string, self.new_flag, n_old, before is not None and not self.append, values)
        namespace._deprecated_flags = used
        setattr(namespace, self.dest, values)


def _check_deprecated_flags(args: argparse.Namespace) -> None:
    """Refuse an old flag given together with its new name (``--columns a --on b``), as Python
    refuses both keywords: the two would have been merged (or one dropped) silently."""
    for dest, (old, new, n_old, overwrote, set_to) in getattr(args, "_deprecated_flags", {}).items():
        value = getattr(args, dest, None)
        later = len(value) > n_old if isinstance(value, list) else value is not set_to   # the new flag after it
        if overwrote or later:
            raise cli._UsageError(f"{old} and {new} are the same option; give {new} only")


def _split(text: str) -> list[Any]:
    """``a,b`` -> ["a", "b"]; ``1,2`` -> [1, 2] (JSON scalars where they parse)."""
    out = []
    for part in cli._columns(text):
        try:
            out.append(json.loads(part))
        except ValueError:
            out.append(part)
    return out


def _convert(o: Option, value: Any) -> Any:
    """The Python value of a flag's text (argparse has converted ints, floats, bools, choices)."""
    flag = "--" + o.name.replace("_", "-")
    if o.kind == "columns":
        if o.name == "household_columns":   # "" declares every masked column person-level ([])
            return list(dict.fromkeys(c for text in value for c in cli._household_columns(text) or []))
        return list(dict.fromkeys(c for text in value for c in cli._columns(text)))
    if o.kind == "number_or_map":
        if "=" in value:
            return cli._weights(value, flag=flag)
        try:
            return float(value)
        except ValueError:
            raise cli._UsageError(f"{flag}: expected a number or COL=X pairs, got {value!r}") from None
    if o.kind == "map":
        return cli._weights(value, flag=flag)
    if o.kind == "floats_or_map":
        if value.lstrip().startswith("{"):
            return _json(flag, value)
        try:
            return [float(v) for v in cli._columns(value)]
        except ValueError:
            raise cli._UsageError(f"{flag}: expected numbers separated by commas, got {value!r}") from None
    if o.kind == "ints":
        try:
            return [int(v) for v in cli._columns(value)]
        except ValueError:
            raise cli._UsageError(f"{flag}: expected integers separated by commas, got {value!r}") from None
    if o.name == "hierarchies":   # --hierarchies, repeatable: JSON objects and COLUMN=PATH pairs
        return _hierarchies(flag, value)
    if o.kind == "json":
        text = value.lstrip()
        return _json(flag, value) if text[:1] in "[{\"" or text in ("true", "false", "null") else _split(value)
    return value


def _hierarchies(flag: str, texts: list[str]) -> Any:
    """The hierarchies of every ``--hierarchies``: ``COLUMN=PATH`` pairs split at a comma that
    starts a new ``COLUMN=`` (so ``age=dir,x/age.csv`` is one path; checked by
    :func:`~polars_sdc.generalize.hierarchy.hierarchy_mapping`), or JSON objects (merged with
    them); a column named twice is an error.

    >>> _hierarchies("--hierarchies", ["age=h,x/age.csv,sex=sex.csv"])
    ['age=h,x/age.csv', 'sex=sex.csv']
    >>> _hierarchies("--hierarchies", ["age=h,x/age.csv", '{"race": "r.csv"}'])
    {'age': 'h,x/age.csv', 'race': 'r.csv'}
    """
    from .generalize.hierarchy import hierarchy_mapping, split_pairs

    pairs: list[str] = []
    objects: list[dict[str, Any]] = []
    for text in texts:
        if text.lstrip()[:1] == "{":
            obj = _json(flag, text)
            if not isinstance(obj, dict):
                raise cli._UsageError(f"{flag}: expected a JSON object {{column: hierarchy}}, got {text!r}")
            objects.append(obj)
        else:
            pairs += split_pairs(text)
    if not objects:
        return pairs
    out: dict[str, Any] = dict(hierarchy_mapping(pairs)) if pairs else {}
    for obj in objects:
        for c, h in obj.items():
            if c in out:
                raise cli._UsageError(f"{flag}: column {c!r} is given twice")
            out[c] = h
    return out


def _json(flag: str, text: str) -> Any:
    """A JSON option's value; a name repeated in one object is refused, as in a recipe (one
    reader for both: ``json`` alone keeps the last of a repeated name silently).

    >>> _json("--importance", '{"age": 1, "age": 2}')
    Traceback (most recent call last):
    ...
    polars_sdc.cli._UsageError: --importance: not valid JSON ('age' is given twice in one object)
    """
    from .process.recipe import _unique_pairs

    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except ValueError as exc:
        raise cli._UsageError(f"{flag}: not valid JSON ({exc})") from None


def options(op: Operation, args: argparse.Namespace) -> dict[str, Any]:
    """The options given on the command line, as the Python function takes them."""
    given = {o.name: _convert(o, getattr(args, o.name)) for o in op.options
             if hasattr(args, o.name) and o.name != "null_values"}
    missing = [o for o in op.options if o.required and o.name in op.renamed.values() and o.name not in given]
    if missing:   # a required option with a deprecated flag (argparse could not check it)
        raise cli._UsageError(f"the following arguments are required: --{missing[0].name.replace('_', '-')} "
                              f"(see `{cli.PROG} {op.command} --help`)")
    tokens = cli._null_values(args)
    if tokens and "null_values" in op.names():
        given["null_values"] = tokens
    return given


def _effects_lines(effects: dict[str, Any]) -> list[str]:
    lines = [f"  {v['variable']}: {v['suppressed']} value(s) suppressed, {v['changed']} changed"
             for v in effects["variables"]]
    return lines or ["  no value changed"]


def run_operation(args: argparse.Namespace) -> int:
    """The skeleton of every generated subcommand."""
    from .process import step_effects

    op: Operation = args.operation
    t_start = time.perf_counter()
    _check_deprecated_flags(args)
    given = options(op, args)
    drawn = "seed" in op.names() and given.get("seed") is None
    if drawn:   # drawn here, so the summary and --report can say it: the release stays reproducible
        from .rng import fresh_seed

        given["seed"] = fresh_seed()
    tokens = cli._null_values(args)
    cli._check_paths([args.input], args.output, args.report)
    lf = cli._scan(args.input, tokens)
    schema = lf.collect_schema()   # a name typed without a CSV header's spaces: the header's column
    given = {k: cli._exact_names(v, schema) if op.option(k).kind in ("column", "columns") else v
             for k, v in given.items()}
    numeric = given.get(op.numeric) if op.numeric else None
    if numeric and cli._format(args.input, "input") == "csv":
        lf = cli._check_numeric_text(lf, [numeric] if isinstance(numeric, str) else numeric)
    released = getattr(lf.sdc, op.method)(**given)
    keys = next((given.get(o.name) for o in op.options if o.role == "keys"), None)
    keys = [keys] if isinstance(keys, str) else keys
    if keys is None and op.name == "generalize" and given.get("hierarchies") is not None:
        from .generalize.hierarchy import hierarchy_mapping   # its quasi-identifiers: the hierarchies' columns but the sensitive one

        keys = [c for c in hierarchy_mapping(given["hierarchies"]) if c != given.get("sensitive")]
    by = next((given.get(o.name) for o in op.options if o.role == "strata"), None) if keys else None
    if by:   # the strata are released with the keys: a class is read on both
        keys = [*keys, *(c for c in ([by] if isinstance(by, str) else by) if c not in keys)]
    summarize = _SUMMARIES.get(op.name)
    extra = summarize.plan(lf, given) if summarize else None

    # a generalisation's release: its suppressed records' label reads as every key missing
    label = ({**op.defaults(), **given} if op.name == "generalize" else given).get("suppressed_as")
    # --household: classes count households (the unit a household release protects, as
    # `anonymize --household` reports); the records count is kept as k_anonymity_records
    hh = given.get("household")

    def check(result: pl.LazyFrame) -> dict[str, Any]:
        t1 = time.perf_counter()
        after = result.collect()
        effects = step_effects(lf.collect(), after, keys or [], label)
        out: dict[str, Any] = {"rows": after.height, **effects}
        if keys:
            out["k_anonymity"] = after.sdc.k_anonymity(keys, suppressed_as=label, household=hh)
            if hh is not None:
                out["k_anonymity_unit"] = "households"
                out["k_anonymity_records"] = after.sdc.k_anonymity(keys, suppressed_as=label)
        if summarize:
            out.update(summarize.measure(after, given, extra))
        out["measure_seconds"] = time.perf_counter() - t1
        return out

    res, elapsed = cli._sink_checked(released, args.output, check)
    if summarize:
        lines = summarize.lines(res, given, args.output, elapsed)
    else:
        shown = ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in given.items())
        lines = [f"wrote {args.output}: {res['rows']} rows, {op.name} ({shown}), {elapsed:.2f} s", *_effects_lines(res)]
        if keys:
            lines.append(f"  k-anonymity {_k_text(res)} on {','.join(keys)} (a null matches any value)")
    if drawn:
        lines.append(f"  seed {given['seed']} drawn (give --seed {given['seed']} to repeat this release)")
    for line in lines:
        print(line)
    parameters = {**op.defaults(), **given}
    measure_seconds = res.pop("measure_seconds")
    cli._write_report(args.report, op.command, args, parameters, res,
                      {f"{op.name}_and_write": elapsed, "measure": measure_seconds}, started=t_start)
    return 0


def _k_text(res: dict[str, Any]) -> str:
    """The k-anonymity of a step's report: ``3``, or with ``--household`` ``2 households (5
    records)``."""
    if "k_anonymity_records" not in res:
        return f"{res['k_anonymity']}"
    k, r = res["k_anonymity"], res["k_anonymity_records"]
    return f"{k} household{'' if k == 1 else 's'} ({r} record{'' if r == 1 else 's'})"


class _RecodeSummary:
    """``recode``: the categories before and after per column, and the classes on them."""

    @staticmethod
    def plan(lf: pl.LazyFrame, given: dict[str, Any]) -> pl.DataFrame:
        if given.get("household") is not None:
            # recode_map counts persons; with --household the household-level columns are recoded
            # on one row per household: the merges are read off the release (measure)
            return lf.select(given["on"]).collect()
        opts = {k: v for k, v in given.items() if k not in ("on", "p")}
        return lf.sdc.recode_map(given["on"], given["p"], **opts)

    @staticmethod
    def measure(after: pl.DataFrame, given: dict[str, Any], plan: pl.DataFrame) -> dict[str, Any]:
        cols = given["on"]
        hh = given.get("household")   # --household: categories and classes count households
        per_column = {}
        for c in cols:
            if hh is None:
                part = plan.filter(pl.col("column") == c)
            else:   # (original, recoded) pairs of the release
                part = pl.DataFrame({"original": plan.get_column(c).cast(pl.String),
                                     "recoded": after.get_column(c).cast(pl.String)}
                                    ).filter(pl.col("original").is_not_null()).unique()
            merged = part.filter(pl.col("original") != pl.col("recoded"))
            counts = (after.get_column(c).drop_nulls().value_counts() if hh is None else
                      after.filter(pl.col(c).is_not_null()).group_by(c).agg(pl.col(hh).n_unique().alias("count")))
            per_column[c] = {
                "categories_before": part.height,
                "categories_after": counts.height,
                "categories_merged": merged.height,
                "merge_groups": merged.get_column("recoded").n_unique(),
                "smallest_category": int(counts.get_column("count").min() or 0) if counts.height else 0,
            }
        classes, smallest = cli._group_stats(after, cols, hh)  # a null is a value of its own here
        return {"columns": per_column, "class_columns": cols, "classes": classes,
                "counts": "rows" if hh is None else "households",
                "smallest_class": smallest, "global_risk": after.sdc.global_risk(cols)["global_risk"]}

    @staticmethod
    def lines(res: dict[str, Any], given: dict[str, Any], output: str, elapsed: float) -> list[str]:
        rows, p = res["rows"], given["p"]
        more = f"{rows * p:g} rows" if res.get("counts", "rows") == "rows" else f"a share {p:g} of the households"
        out = [f"wrote {output}: {rows} rows, {len(given['on'])} column(s) recoded (p = {p:g}: every category "
               f"gets more than {more} where merging allows), {elapsed:.2f} s"]
        out += [f"  {c}: {d['categories_before']} -> {d['categories_after']} categories "
               f"({d['categories_merged']} merged in {d['merge_groups']} group(s)), smallest {d['smallest_category']} "
               f"{res['counts']}" for c, d in res["columns"].items()]
        out.append(f"  {res['classes']} classes on {','.join(res['class_columns'])}, smallest {res['smallest_class']}"
                   f"{'' if res['counts'] == 'rows' else ' households'}; "
                   f"global risk {res['global_risk']:.6g}")
        return out


class _GeneralizeSummary:
    """``generalize``: the chosen level per quasi-identifier, the records suppressed, the metric
    (the search runs once more on the collected input for them: it is deterministic)."""

    @staticmethod
    def plan(lf: pl.LazyFrame, given: dict[str, Any]) -> Any:
        return lf.collect().sdc.generalize(**given)

    @staticmethod
    def measure(after: pl.DataFrame, given: dict[str, Any], g: Any) -> dict[str, Any]:
        return {"levels": dict(g.levels), "records_suppressed": g.suppressed, "max_suppressed": g.max_suppressed,
                "metric": g.metric, "metric_value": g.loss, "transformations_checked": g.checked,
                "transformations": g.lattice.height}

    @staticmethod
    def lines(res: dict[str, Any], given: dict[str, Any], output: str, elapsed: float) -> list[str]:
        levels = ", ".join(f"{c} {v}" for c, v in res["levels"].items())
        out = [f"wrote {output}: {res['rows']} rows, generalised (levels {levels}), {elapsed:.2f} s",
               f"  {res['records_suppressed']} record(s) suppressed (at most {res['max_suppressed']}); "
               f"{res['metric']} {res['metric_value']:.10g}; {res['transformations_checked']} of "
               f"{res['transformations']} transformations checked"]
        if "k_anonymity" in res:
            out.append(f"  k-anonymity {_k_text(res)} (a suppressed record's keys match any value)")
        return out


_SUMMARIES: dict[str, Any] = {"recode": _RecodeSummary, "generalize": _GeneralizeSummary}


# -- polars-sdc run RECIPE IN OUT ---------------------------------------------------------------
def _add_run(sub: Any) -> None:
    parser = cli._command(
        sub, "run", "run a recipe (roles and steps, TOML or JSON) on a CSV or Parquet file",
        "Apply the steps of RECIPE (written by problem.to_recipe(), or by hand; see docs/process.md) to IN "
        "as one lazy scan -> steps -> sink pipeline and write OUT. The recipe and its columns are checked "
        "before any data is read; the same recipe gives the same release as polars_sdc.run_recipe.",
        [("recipe", "RECIPE", "recipe .toml or .json"), *cli._in_out()],
    )
    parser.add_argument("--sign-off", dest="sign_off", metavar="FILE.html",
                        help="also write the release report of the run (problem.sign_off(): verdict, steps, "
                        "per-variable counts, risk before/after, utility, plots; docs/report.md): .html, or .txt / "
                        ".md for its text view; its verdict is printed too")
    cli._finish(parser, run_recipe_command, null_values=cli._NULL_VALUES_HELP)


def _check_sign_off(path: str | None, taken: list[str]) -> None:
    if path is None:
        return
    cli._no_stdio(path, "sign-off")
    if not path.lower().endswith((".html", ".htm", ".txt", ".md")):
        raise cli._UsageError(f"--sign-off {path!r}: the report is an .html, .txt or .md file")
    cli._check_target(path, "sign-off", [])   # not a directory, in an existing directory (before any work)
    for other in taken:
        if other is not None and cli._same_file(other, path):
            raise cli._UsageError("--sign-off must differ from the input, the recipe, the output and --report")


def _write_text(path: str, text: str) -> None:
    """``text`` to ``path`` atomically (a temporary file in the same folder, renamed)."""
    import os

    tmp = cli._temp_path(path)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, cli._file_mode(path))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _recipe_numeric(recipe: Any) -> list[str]:
    """The columns a recipe masks as numbers: its numeric role and each step's numeric option."""
    from .operations import OPERATIONS

    out: list[str] = []
    given = [recipe.roles.get("numeric")]
    given += [opts.get(OPERATIONS[name].numeric) for name, opts in recipe.steps if OPERATIONS[name].numeric]
    for value in given:
        for c in [value] if isinstance(value, str) else value or []:
            if isinstance(c, str) and c not in out:
                out.append(c)
    return out


def run_recipe_command(args: argparse.Namespace) -> int:
    from .process import read_recipe, run_recipe, step_effects

    t_start = time.perf_counter()
    cli._no_stdio(args.recipe, "recipe")
    cli._check_paths([args.input, args.recipe], args.output, args.report)
    _check_sign_off(args.sign_off, [args.input, args.recipe, args.output, args.report])
    from pathlib import Path

    recipe = read_recipe(Path(args.recipe))  # every check that needs no data, before the input is opened
    lf = cli._scan(args.input, cli._null_values(args))
    if cli._format(args.input, "input") == "csv":   # the numeric columns as the steps' commands read them
        lf = cli._check_numeric_text(lf, _recipe_numeric(recipe))
    problem = run_recipe(recipe, lf)
    keys = list(problem.roles.keys)
    classes = problem.class_columns() if keys else []   # the keys and the released strata

    def check(result: pl.LazyFrame) -> dict[str, Any]:
        after = result.collect()
        out: dict[str, Any] = {"rows": after.height, **step_effects(lf.collect(), after, classes, problem.suppressed_as)}
        hh = problem.roles.household   # a household role: classes count households (as a step's --household)
        if keys:
            out["k_anonymity"] = after.sdc.k_anonymity(classes, suppressed_as=problem.suppressed_as, household=hh)
            if hh is not None:
                out["k_anonymity_unit"] = "households"
                out["k_anonymity_records"] = after.sdc.k_anonymity(classes, suppressed_as=problem.suppressed_as)
        # the sign-off and the log may refuse the release (an empty one has nothing to measure):
        # built here, before the output is renamed into place, so a failed run writes nothing
        if args.sign_off:
            out["sign_off"] = problem.sign_off()
        if args.report:
            t0 = time.perf_counter()
            out["log"] = problem.log.to_dicts()
            out["log_seconds"] = time.perf_counter() - t0
        return out

    res, elapsed = cli._sink_checked(problem.release(), args.output, check)
    summary = res.pop("sign_off", None)
    log_seconds = res.pop("log_seconds", None)
    names = [name for name, _ in recipe.steps]
    print(f"wrote {args.output}: {res['rows']} rows, {len(names)} step(s) of {args.recipe} "
          f"({', '.join(names) or 'none'}), {elapsed:.2f} s")
    for line in _effects_lines(res):
        print(line)
    if keys:
        print(f"  k-anonymity {_k_text(res)} on {','.join(classes)} (a null matches any value)")
    if args.sign_off:
        _write_text(args.sign_off, summary.to_html() if args.sign_off.lower().endswith((".html", ".htm"))
                    else repr(summary) + "\n")
        print(f"  verdict: {summary.verdict}")
        print(f"wrote {args.sign_off}")
    parameters = {"recipe": args.recipe, "roles": dict(recipe.roles),
                  "steps": [{"operation": n, **o} for n, o in recipe.steps]}
    if args.report:  # the session's log (res["log"]): per step its effects, the risk and the loss after it
        timings = {"run_and_write": elapsed, "log": log_seconds}
    else:
        timings = {"run_and_write": elapsed}
    cli._write_report(args.report, "run", args, parameters, res, timings, started=t_start)
    return 0


__all__ = ["add_operation_parsers", "options", "run_operation", "run_recipe_command"]
