"""Recipes: the roles and steps of an SDC problem as a plain text file, to replay a session
in a nightly job (:func:`run_recipe`, ``polars-sdc run RECIPE IN OUT``).

The format is TOML (read with the standard library's ``tomllib``) or JSON (the same
structure; a file ending in ``.json``, or text starting with ``{``)::

    # polars_sdc recipe
    version = 1

    [roles]                      # keys, numeric, weight, household, strata, sensitive, pram
    keys = ["db040", "age", "rb090"]
    weight = "rb050"

    [[steps]]                    # one table per step, applied in order
    operation = "suppress"       # a step of polars_sdc.operations
    k = 3                        # its options; the roles fill the ones left out

A recipe is checked before any data is read: an unknown role, step or option, a value of
the wrong kind (a text where a number goes, a choice not offered) is refused naming the line;
a column it names that the frame lacks is refused (naming the line) when the frame's schema
is known, still before any data is read.

>>> r = read_recipe('[roles]\\nkeys = ["a"]\\n\\n[[steps]]\\noperation = "suppres"\\nk = 2\\n')
Traceback (most recent call last):
...
polars_sdc._errors.SDCError: recipe line 5: unknown operation 'suppres'; did you mean 'suppress'? (steps: suppress, suppress_risky, pram, rank_swap, add_noise, laplace, recode, recode_intervals, top_bottom_code, swap_records, microaggregate, generalize)
"""
from __future__ import annotations

import json
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .._errors import SDCError
from .._signature import check_keywords, unknown_keyword
from .problem import LIST_ROLES, ONE_ROLES, Problem

VERSION = 1
HEADER = "# polars_sdc recipe: polars_sdc.run_recipe(recipe, frame) or `polars-sdc run RECIPE IN OUT`"


@dataclass(frozen=True)
class Recipe:
    """A checked recipe: ``roles`` ({role: column(s)}) and ``steps`` ((operation, options), in
    order); ``lines`` maps ("roles", role) and (step index, option) to the line they are on."""

    roles: Mapping[str, Any]
    steps: tuple[tuple[str, Mapping[str, Any]], ...]
    lines: Mapping[tuple[Any, str], int] = field(default_factory=dict, compare=False)
    source: str = field(default="recipe", compare=False)

    def where(self, section: Any, key: str) -> str:
        line = self.lines.get((section, key)) or self.lines.get((section, ""))
        return f"{self.source} line {line}" if line else self.source

    def check_columns(self, schema: pl.Schema) -> None:
        """Every column the roles and the steps' column options name is in ``schema`` (an
        error names the line and the column)."""
        from ..operations import OPERATIONS

        for role, value in self.roles.items():
            for c in [value] if isinstance(value, str) else value:
                if c not in schema:
                    raise SDCError(f"{self.where('roles', role)}: column {c!r} (role {role}) is not in the frame")
        for i, (name, options) in enumerate(self.steps):
            op = OPERATIONS[name]
            for key, value in options.items():
                kind = op.option(key).kind
                names = [value] if kind == "column" or (kind == "columns" and isinstance(value, str)) else \
                    value if kind == "columns" else []
                for c in names:
                    if c not in schema:
                        raise SDCError(f"{self.where(i, key)}: column {c!r} ({name} {key}) is not in the frame")


def _source(recipe: Any) -> tuple[str, str, str]:
    """(text, format, name for messages) of a path or a text."""
    if isinstance(recipe, Path) or (isinstance(recipe, str) and "\n" not in recipe and (
            recipe.lower().endswith((".toml", ".json")) or Path(recipe).is_file())):
        path = Path(recipe)
        if path.is_dir():
            raise SDCError(f"recipe {str(path)!r} is a directory; give a .toml or .json file")
        if not path.is_file():
            raise FileNotFoundError(f"recipe {str(path)!r} not found")
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise SDCError(f"recipe {str(path)!r}: not UTF-8 (byte 0x{raw[exc.start]:02x} on line {line}); "
                           "save it as UTF-8") from None
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return text, fmt, str(path)
    if not isinstance(recipe, str):
        raise SDCError(f"a recipe is a path or a text, got {type(recipe).__name__}")
    return recipe, "json" if recipe.lstrip().startswith("{") else "toml", "recipe"


def _lines(text: str, fmt: str) -> dict[tuple[Any, str], int]:
    """The line of each role and step option (first match; enough to point at the mistake)."""
    out: dict[tuple[Any, str], int] = {}
    section: Any = None
    step = -1
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if fmt == "toml":
            if re.match(r"^\[\[\s*steps\s*\]\]", s):
                step += 1
                section = step
                out[(section, "")] = no
                continue
            if re.match(r"^\[\s*roles\s*\]", s):
                section = "roles"
                out[(section, "")] = no
                continue
            m = re.match(r'^"?([A-Za-z0-9_\-]+)"?\s*=', s)
        else:
            if '"roles"' in s:
                section = "roles"
                out[(section, "")] = no
            if '"operation"' in s:
                step += 1
                section = step
                out[(section, "")] = no
            m = re.match(r'^[{,\[]?\s*"([A-Za-z0-9_\-]+)"\s*:', s)
        if m and section is not None:
            out.setdefault((section, m.group(1)), no)
    return out


@check_keywords
def read_recipe(recipe: Any) -> Recipe:
    """Parse and check a recipe (a path to a .toml / .json file, or its text) without any
    data: the roles, the operations and their options (see the module docstring).

    >>> import polars_sdc
    >>> r = polars_sdc.read_recipe('''
    ... [roles]
    ... keys = ["region", "sex"]
    ...
    ... [[steps]]
    ... operation = "suppress"
    ... k = 2
    ... ''')
    >>> r.roles, r.steps
    ({'keys': ['region', 'sex']}, (('suppress', {'k': 2}),))
    """
    if isinstance(recipe, Recipe):
        return recipe
    text, fmt, name = _source(recipe)
    lines = _lines(text, fmt)
    try:
        if fmt == "json":
            doc = json.loads(text, object_pairs_hook=_unique_pairs)
        else:
            import tomllib

            doc = tomllib.loads(text)
    except (ValueError, json.JSONDecodeError) as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise SDCError(f"{name}: not valid {fmt.upper()}: {exc}") from None
    where = Recipe({}, (), lines, name).where
    if not isinstance(doc, dict):
        raise SDCError(f"{name}: a recipe is a table with [roles] and [[steps]]")
    for key in doc:
        if key not in ("version", "roles", "steps"):
            raise SDCError(f"{where(None, key)}: unknown entry {key!r} (a recipe has version, roles and steps)")
    if doc.get("version", VERSION) != VERSION:
        raise SDCError(f"{name}: recipe version {doc.get('version')!r}; this polars_sdc reads version {VERSION}")
    roles = doc.get("roles", {})
    if not isinstance(roles, dict):
        raise SDCError(f"{where('roles', '')}: roles must be a table")
    for role, value in roles.items():
        if role not in LIST_ROLES + ONE_ROLES:
            raise SDCError(f"{where('roles', role)}: {unknown_keyword('roles', role, list(LIST_ROLES + ONE_ROLES))}")
        ok = isinstance(value, str) if role in ONE_ROLES else (
            isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)))
        if not ok:
            what = "one column name" if role in ONE_ROLES else "a column name or a list of them"
            raise SDCError(f"{where('roles', role)}: role {role} must be {what}, got {value!r}")
    steps = doc.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise SDCError(f"{name}: steps must be a list of tables ([[steps]])")
    out = []
    for i, entry in enumerate(steps):
        entry = dict(entry)
        op_name = entry.pop("operation", None)
        if not isinstance(op_name, str):
            raise SDCError(f"{where(i, '')}: step {i + 1} has no operation = \"...\"")
        op = _step_operation(op_name, where(i, "operation"))
        entry = _renamed(op, entry, i, lines, where)
        for key, value in entry.items():
            if key not in op.names():
                raise SDCError(f"{where(i, key)}: {unknown_keyword(op.name, key, op.names())}")
            _check_value(op.option(key), value, f"{where(i, key)}: {op.name} {key}")
        if isinstance(entry.get("hierarchies"), dict) and name != "recipe":
            entry["hierarchies"] = _beside(entry["hierarchies"], Path(name).parent)
        out.append((op.name, entry))
    return Recipe(roles, tuple(out), lines, name)


def _renamed(op: Any, entry: dict[str, Any], i: int, lines: dict[tuple[Any, str], int], where: Any) -> dict[str, Any]:
    """A step's options with each deprecated name (a recipe written before a rename:
    ``columns`` of recode, ``risk_above`` of suppress_risky, ...) read as its new name, warning
    with the recipe line; the line is kept for the new name's errors."""
    renamed = op.renamed
    if not any(k in renamed for k in entry):
        return entry
    from .._signature import warn_deprecated

    out: dict[str, Any] = {}
    for key, value in entry.items():
        new = renamed.get(key)
        if new is None:
            out.setdefault(key, value)
            continue
        if new in entry:
            raise SDCError(f"{where(i, key)}: {op.name}: give {new} only ({key} is its deprecated name)")
        warn_deprecated(f"{where(i, key)}: {op.name} option {key} is deprecated; write {new} (the same option)")
        if (i, key) in lines:
            lines[(i, new)] = lines[(i, key)]
        out[new] = value
    return out


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every name is given once (``json`` keeps the last of a repeated
    name silently; TOML refuses it)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"{key!r} is given twice in one object")
        out[key] = value
    return out


def _beside(hierarchies: dict[str, Any], home: Path) -> dict[str, Any]:
    """A recipe file's relative hierarchy paths (ARX CSVs) read beside the recipe, as written
    (a path that exists only relative to the working directory is kept, as before)."""
    out = dict(hierarchies)
    for col, value in hierarchies.items():
        if isinstance(value, str) and not Path(value).is_absolute() and (home / value).is_file():
            out[col] = str(home / value)
    return out


def _step_operation(name: str, where: str) -> Any:
    import difflib

    from ..operations import OPERATIONS, steps

    names = [op.name for op in steps()]
    if name not in names:
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise SDCError(f"{where}: unknown operation {name!r}{hint} (steps: {', '.join(names)})")
    return OPERATIONS[name]


def _number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _check_value(option: Any, value: Any, where: str) -> None:
    """A recipe value of the option's kind (ranges are checked by the operation itself)."""
    kind = option.kind
    if value is None and (option.default is None or option.nullable):
        return
    ok = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "float": _number,
        "bool": lambda v: isinstance(v, bool),
        "str": lambda v: isinstance(v, str),
        "choice": lambda v: v in option.choices,
        "column": lambda v: isinstance(v, str),
        "columns": lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)),
        "number_or_map": lambda v: _number(v) or (isinstance(v, dict) and all(_number(x) for x in v.values())),
        "map": lambda v: isinstance(v, dict) and all(_number(x) for x in v.values()),
        "floats_or_map": lambda v: (isinstance(v, list) and all(_number(x) for x in v)) or (
            isinstance(v, dict) and all(isinstance(x, list) and all(_number(y) for y in x) for x in v.values())),
        "ints": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (
            isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)),
        "json": lambda v: True,
    }[kind]
    if not ok(value):
        want = f"one of {', '.join(map(repr, option.choices))}" if kind == "choice" else {
            "int": "an integer", "float": "a number", "bool": "true or false", "str": "a text",
            "column": "a column name", "columns": "a column name or a list of them",
            "number_or_map": "a number or a table {column = number}", "map": "a table {column = number}",
            "floats_or_map": "a list of numbers or a table {column = [numbers]}",
            "ints": "an integer or a list of integers",
        }[kind]
        raise SDCError(f"{where} must be {want}, got {value!r}")


# -- writing ----------------------------------------------------------------------------------
def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_\-]+", key) else json.dumps(key, ensure_ascii=False)


def _toml_value(value: Any, where: str) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if hasattr(value, "to_recipe_value") or isinstance(value, (pl.DataFrame, Path)):  # a hierarchy, its table or CSV
        from .problem import _plain

        value = _plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, where) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(str(k))} = {_toml_value(v, where)}" for k, v in value.items()) + "}"
    if value is None:
        raise SDCError(f"{where}: None cannot be written in TOML; use to_recipe(format='json')")
    raise SDCError(f"{where}: a {type(value).__name__} cannot be written in a recipe (give column names, numbers, texts)")


def recipe_text(roles: Mapping[str, Any], steps: Sequence[tuple[str, Mapping[str, Any]]], *, format: str = "toml") -> str:
    """The recipe of ``roles`` and ``steps`` as TOML or JSON text (options equal to None and
    to their default are left out in TOML, which has no null)."""
    from ..operations import OPERATIONS
    from .problem import _plain

    for name, options in steps:
        for k, v in options.items():
            if isinstance(v, pl.Expr):
                raise SDCError(f"step {name}: option {k} is a selector; give column names to write a recipe")
    if format == "json":
        doc = {"version": VERSION, "roles": dict(roles),
               "steps": [{"operation": name, **_plain(dict(options))} for name, options in steps]}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if format != "toml":
        raise SDCError(f"format must be 'toml' or 'json', got {format!r}")
    out = [HEADER, f"version = {VERSION}", "", "[roles]"]
    out += [f"{k} = {_toml_value(v, f'role {k}')}" for k, v in roles.items()]
    for name, options in steps:
        op = OPERATIONS[name]
        out += ["", "[[steps]]", f'operation = "{name}"']
        for k, v in options.items():
            if v is None and op.option(k).default is None:
                continue
            out.append(f"{_toml_key(k)} = {_toml_value(v, f'step {name} option {k}')}")
    return "\n".join(out) + "\n"


@check_keywords
def run_recipe(recipe: Any, frame: pl.DataFrame | pl.LazyFrame) -> Problem:
    """Run a recipe (a path, its text or a :class:`Recipe`) on ``frame``: the problem with the
    recipe's roles and steps applied (``.release()`` is the masked frame, lazy when ``frame``
    is; ``.log`` what each step did). The recipe and its columns are checked against the
    frame's schema before any data is read.

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": ["u", "u", "v", "v"]})
    >>> text = '[roles]\\nkeys = ["a", "b"]\\n\\n[[steps]]\\noperation = "suppress"\\nk = 2\\n'
    >>> polars_sdc.run_recipe(text, df.lazy()).release().collect().rows()
    [('x', 'u'), ('x', 'u'), (None, 'v'), ('y', 'v')]
    """
    r = read_recipe(recipe)
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        raise SDCError(f"run_recipe: expected a DataFrame or LazyFrame, got {type(frame).__name__}")
    r.check_columns(frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema)
    try:
        problem = Problem(frame, **r.roles)
    except SDCError as exc:
        raise SDCError(f"{r.where('roles', '')}: {exc}") from None
    for i, (name, options) in enumerate(r.steps):
        try:
            problem = problem.apply(name, **options)
        except SDCError as exc:
            raise SDCError(f"{r.where(i, '')} ({name}): {exc}") from None
    return problem
