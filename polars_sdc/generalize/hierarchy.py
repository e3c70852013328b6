"""Generalisation hierarchies as data (ARX's model: one row per original value, level 0
first, each further column a coarser label; the last level usually ``*``).

A :class:`Hierarchy` is a table of strings: ``levels[j][i]`` is the label of original value
``values[i]`` at level ``j`` (``levels[0] == values``). It is read from ARX's CSV format
(:meth:`Hierarchy.read_csv`: ``;``-separated, no header) or built from rules: numeric intervals
with a fan-out (:meth:`Hierarchy.intervals`), right-to-left masking of codes
(:meth:`Hierarchy.masking`), date truncation (:meth:`Hierarchy.dates`) or a Python mapping
(:meth:`Hierarchy.from_mapping`). Every hierarchy is validated when made: the original values are
distinct and non-empty, every row has the same number of levels, and each level is a
coarsening of the previous one (two values with one label at level j share their label at
level j + 1); a violation is an :class:`~polars_sdc.SDCError` naming the first bad value.

>>> h = Hierarchy.from_mapping({"a": ["ab", "*"], "b": ["ab", "*"], "c": ["c", "*"]})
>>> h.height, h.labels(1)
(2, ['ab', 'ab', 'c'])
"""
from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from .._errors import SDCError


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A generalisation hierarchy (ARX ``AttributeType.Hierarchy``): ``levels[j]`` holds the
    level-``j`` label of every original value ``levels[0][i]``; ``height`` = number of levels - 1
    (ARX's height, used by the precision metric).

    >>> h = Hierarchy([["1", "2", "3"], ["1-2", "1-2", "3"], ["*", "*", "*"]])
    >>> h.height, h.n_values, h.to_frame().row(0)
    (2, 3, ('1', '1-2', '*'))
    """

    levels: tuple[tuple[str, ...], ...]
    name: str | None = None

    def __init__(self, levels: Sequence[Sequence[object]], name: str | None = None) -> None:
        for j, level in enumerate(levels):   # a null: a row shorter than the others (a table padded with nulls)
            for i, v in enumerate(level):
                if v is None:
                    where = f"hierarchy {name!r}" if name else "hierarchy"
                    value = levels[0][i] if j and i < len(levels[0]) else None
                    raise SDCError(f"{where}: value {_label(value) if value is not None else i!r} has no label at "
                                   f"level {j} (null); every row needs a label at every level")
        cols = tuple(tuple(_label(v) for v in level) for level in levels)
        object.__setattr__(self, "levels", cols)
        object.__setattr__(self, "name", name)
        _validate(self)

    # ----------------------------------------------------------------- views
    @property
    def height(self) -> int:
        """Number of generalisation steps (levels - 1)."""
        return len(self.levels) - 1

    @property
    def n_values(self) -> int:
        """Number of original values (rows; ARX's domain size)."""
        return len(self.levels[0])

    @property
    def values(self) -> list[str]:
        """The original (level-0) values."""
        return list(self.levels[0])

    def labels(self, level: int) -> list[str]:
        """The level-``level`` label of every original value, in row order."""
        return list(self.levels[level])

    def to_frame(self) -> pl.DataFrame:
        """One String column per level (``level_0`` ... ``level_h``), one row per value."""
        return pl.DataFrame({f"level_{j}": list(col) for j, col in enumerate(self.levels)}, schema={
            f"level_{j}": pl.String for j in range(len(self.levels))})

    def to_recipe_value(self) -> dict[str, list[str]]:
        """The hierarchy as a recipe writes it: ``{value: [level-1 label, ...]}`` (read back by
        :meth:`from_mapping`).

        >>> Hierarchy([["a", "b"], ["*", "*"]]).to_recipe_value()
        {'a': ['*'], 'b': ['*']}
        """
        return {v: [self.levels[j][i] for j in range(1, len(self.levels))] for i, v in enumerate(self.levels[0])}

    def __repr__(self) -> str:
        shown = ", ".join(" -> ".join(col[i] for col in self.levels) for i in range(min(2, self.n_values)))
        more = ", ..." if self.n_values > 2 else ""
        nm = f"{self.name!r}, " if self.name else ""
        return f"Hierarchy({nm}{self.n_values} values, height {self.height}: {shown}{more})"

    # ----------------------------------------------------------------- readers / builders
    @classmethod
    def read_csv(cls, path: str | Path, separator: str = ";", name: str | None = None) -> Hierarchy:
        """Read ARX's hierarchy CSV: no header, one row per original value, column j = the
        label at level j (ARX ``CSVHierarchyInput``, separator ``;``; a value holding the
        separator quoted with ``"``, a quote inside it doubled, as ARX's ``CSVSyntax``).

        >>> import tempfile, os
        >>> p = os.path.join(tempfile.mkdtemp(), "h.csv")
        >>> _ = open(p, "w").write("Male;*\\nFemale;*\\n")
        >>> Hierarchy.read_csv(p)
        Hierarchy(2 values, height 1: Male -> *, Female -> *)
        """
        rows: list[list[str]] = []
        raw = Path(path).read_bytes()
        try:
            text = raw.decode("utf-8-sig")   # a byte order mark (Excel's "CSV UTF-8") is not part of the first value
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise SDCError(f"hierarchy file {str(path)!r}: not UTF-8 (byte 0x{raw[exc.start]:02x} on line {line}); "
                           "save it as UTF-8") from None
        import csv
        import io

        # ARX's CSV syntax (CSVSyntax: quote '"', a quote inside a quoted value doubled): a value
        # holding the separator is written quoted, "Married; spouse absent"
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator, quotechar='"', doublequote=True)
        lineno = 0
        try:
            for row in reader:
                lineno += 1
                lineno = max(lineno, reader.line_num)
                if not row or (len(row) == 1 and not row[0].strip()):   # a blank line
                    continue
                if "" in row:   # a trailing separator or a missing label: a level of empty labels
                    raise SDCError(f"hierarchy file {str(path)!r}, line {lineno}: an empty label at level "
                                   f"{row.index('')} (a trailing {separator!r}?)")
                rows.append(row)
        except csv.Error as exc:
            raise SDCError(f"hierarchy file {str(path)!r}, line {reader.line_num}: {exc}") from None
        if not rows:
            raise SDCError(f"hierarchy file {str(path)!r}: no rows")
        width = len(rows[0])
        for r in rows:
            if len(r) != width:
                raise SDCError(f"hierarchy file {str(path)!r}: value {r[0]!r} has {len(r)} levels, "
                               f"the first row has {width}")
        return cls([[r[j] for r in rows] for j in range(width)], name=name)

    @classmethod
    def from_mapping(cls, mapping: Mapping[object, Sequence[object]], name: str | None = None) -> Hierarchy:
        """From ``{value: [level-1 label, level-2 label, ...]}`` (each list the same length).

        >>> Hierarchy.from_mapping({"x": ["*"], "y": ["*"]}).height
        1
        """
        if not mapping:
            raise SDCError("hierarchy mapping: empty")
        items = list(mapping.items())
        width = len(items[0][1])
        for v, gen in items:
            if isinstance(gen, (str, bytes)) or not isinstance(gen, Sequence):
                raise SDCError(f"hierarchy mapping: value {v!r} maps to {gen!r}, not a list of labels")
            if len(gen) != width:
                raise SDCError(f"hierarchy mapping: value {v!r} has {len(gen)} levels above it, "
                               f"the first value has {width}")
        return cls([[v for v, _ in items]] + [[gen[j] for _, gen in items] for j in range(width)], name=name)

    @classmethod
    def intervals(cls, values: Iterable[object], widths: Sequence[int] = (5, 10, 20), top: str = "*",
                  start: int | None = None, name: str | None = None) -> Hierarchy:
        """Intervals with a fan-out for integer values: level j puts ``v`` into
        ``[a, a + widths[j-1])`` with ``a = start + floor((v - start) / w) * w`` (``start``: the
        smallest value unless given), labelled ``"a-b"`` with ``b = a + w - 1`` as ARX's Adult age
        hierarchy does; then one level ``top``. Each width must be a multiple of the previous one
        (so every level coarsens the last).

        >>> h = Hierarchy.intervals([17, 23, 39, 40], widths=(5, 10), start=0)
        >>> h.labels(1), h.labels(2), h.labels(3)
        (['15-19', '20-24', '35-39', '40-44'], ['10-19', '20-29', '30-39', '40-49'], ['*', '*', '*', '*'])
        """
        vals = sorted({_integer(v) for v in values})
        if not vals:
            raise SDCError("intervals: no values")
        ws = [int(w) for w in widths]
        for i, w in enumerate(ws):
            if w < 1:
                raise SDCError(f"intervals: width {w} must be >= 1")
            if i and w % ws[i - 1]:
                raise SDCError(f"intervals: width {w} is not a multiple of {ws[i - 1]}; "
                               f"level {i + 1} would not coarsen level {i}")
        lo = vals[0] if start is None else int(start)
        levels: list[list[str]] = [[str(v) for v in vals]]
        for w in ws:
            lab = []
            for v in vals:
                a = lo + ((v - lo) // w) * w
                lab.append(f"{a}-{a + w - 1}")
            levels.append(lab)
        levels.append([top] * len(vals))
        return cls(levels, name=name)

    @classmethod
    def masking(cls, values: Iterable[object], char: str = "*", name: str | None = None) -> Hierarchy:
        """Right-to-left masking of codes of one length (ZIP, NACE, ISCO): level j replaces the
        last j characters by ``char``; the last level masks every character.

        >>> Hierarchy.masking(["12345", "12399"]).levels[2]
        ('123**', '123**')
        """
        vals = sorted({_label(v) for v in values})
        if not vals:
            raise SDCError("masking: no values")
        lengths = {len(v) for v in vals}
        if len(lengths) != 1:
            short = min(vals, key=len)
            raise SDCError(f"masking: codes must have one length; {short!r} has {len(short)} characters, "
                           f"others {max(lengths)}")
        n = lengths.pop()
        return cls([[v[: n - j] + char * j for v in vals] for j in range(n + 1)], name=name)

    @classmethod
    def dates(cls, values: Iterable[object], top: str = "*", name: str | None = None) -> Hierarchy:
        """Date truncation: day (``YYYY-MM-DD``) -> month (``YYYY-MM``) -> year (``YYYY``) -> ``top``.

        >>> import datetime as dt
        >>> Hierarchy.dates([dt.date(2020, 5, 17)]).to_frame().row(0)
        ('2020-05-17', '2020-05', '2020', '*')
        """
        days = sorted({_date(v) for v in values})
        if not days:
            raise SDCError("dates: no values")
        return cls([[d.isoformat() for d in days], [d.isoformat()[:7] for d in days],
                    [d.isoformat()[:4] for d in days], [top] * len(days)], name=name)


def _label(v: object) -> str:
    if v is None:
        raise SDCError("hierarchy: a null label; every value and label must be a string")
    if type(v).__module__ == "numpy" and hasattr(v, "item"):   # a numpy scalar (a column's to_numpy()):
        v = v.item()                                            # as the Python value (True, 1.0, a date)
    if isinstance(v, bool):  # as a Boolean column's values read (lower case)
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, _decimal.Decimal) and v.is_finite() and v == v.to_integral_value():
        return str(int(v))                # a whole Decimal as an integer, as a whole float
    if isinstance(v, _dt.datetime) and v.time() == _dt.time(0) and v.tzinfo is None:
        return v.date().isoformat()       # a datetime at midnight as its date, as a Datetime column reads
    if isinstance(v, _dt.date):
        return v.isoformat()
    return str(v)


def _integer(v: object) -> int:
    if isinstance(v, bool) or v is None:
        raise SDCError(f"intervals: {v!r} is not an integer value")
    if isinstance(v, float):
        if not v.is_integer():
            raise SDCError(f"intervals: {v!r} is not an integer value")
        return int(v)
    if isinstance(v, _decimal.Decimal) and not (v.is_finite() and v == v.to_integral_value()):
        raise SDCError(f"intervals: {v!r} is not an integer value")   # int() would truncate 1.50 to 1
    try:
        return int(v)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise SDCError(f"intervals: {v!r} is not an integer value") from None


def _date(v: object) -> _dt.date:
    if isinstance(v, _dt.datetime):
        return v.date()
    if isinstance(v, _dt.date):
        return v
    try:
        return _dt.date.fromisoformat(str(v))
    except ValueError:
        raise SDCError(f"dates: {v!r} is not a date (YYYY-MM-DD)") from None


def _validate(h: Hierarchy) -> None:
    levels = h.levels
    where = f"hierarchy {h.name!r}" if h.name else "hierarchy"
    if not levels or not levels[0]:
        raise SDCError(f"{where}: no values")
    n = len(levels[0])
    for j, col in enumerate(levels):
        if len(col) != n:
            raise SDCError(f"{where}: level {j} has {len(col)} labels for {n} values")
    seen: dict[str, int] = {}
    for i, v in enumerate(levels[0]):
        if v in seen:
            raise SDCError(f"{where}: value {v!r} appears twice (rows {seen[v]} and {i})")
        seen[v] = i
    for j in range(len(levels) - 1):
        up: dict[str, tuple[str, str]] = {}
        for i in range(n):
            lab, nxt = levels[j][i], levels[j + 1][i]
            prev = up.get(lab)
            if prev is None:
                up[lab] = (nxt, levels[0][i])
            elif prev[0] != nxt:
                raise SDCError(f"{where}: value {levels[0][i]!r}: level {j + 1} label {nxt!r} does not coarsen "
                               f"level {j}: {prev[1]!r} has the same level-{j} label {lab!r} but level-{j + 1} "
                               f"label {prev[0]!r}")


#: the rules a hierarchy can be built by from a column's values (``{"rule": name, **options}``)
RULES = ("intervals", "masking", "dates")


def as_hierarchy(h: object, column: str, values: Iterable[object] | None = None) -> Hierarchy:
    """A :class:`Hierarchy`, a path to an ARX CSV, a mapping ``{value: [labels]}``, a table
    (DataFrame of levels), or a rule ``{"rule": "intervals" | "masking" | "dates", **options}``
    built from the column's ``values`` (a recipe's or the CLI's way to give one).

    >>> as_hierarchy({"rule": "intervals", "widths": [10], "start": 0}, "age", [23, 37]).labels(1)
    ['20-29', '30-39']
    """
    if isinstance(h, Hierarchy):
        return h
    if isinstance(h, (str, Path)):
        if not Path(h).is_file():
            hint = (" (a comma in COLUMN=PATH pairs starts a new pair only before NAME=; check the pairs)"
                    if "," in str(h) else "")
            raise SDCError(f"column {column!r}: hierarchy file {str(h)!r} not found{hint}")
        return Hierarchy.read_csv(h, name=column)
    if isinstance(h, Mapping) and isinstance(h.get("rule"), str):
        options = {k: v for k, v in h.items() if k != "rule"}
        rule = h["rule"]
        if rule not in RULES:
            raise SDCError(f"column {column!r}: hierarchy rule {rule!r} is not one of {', '.join(RULES)}")
        if values is None:
            raise SDCError(f"column {column!r}: a hierarchy rule needs the column's values")
        builder = getattr(Hierarchy, rule)
        import difflib
        import inspect

        takes = [n for n in inspect.signature(builder).parameters if n not in ("values", "name")]
        for key in options:
            if key not in takes:
                close = difflib.get_close_matches(key, takes, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise SDCError(f"column {column!r}: hierarchy rule {rule!r} has no option {key!r}{hint} "
                               f"(it takes: {', '.join(takes)})")
        try:
            return builder(values, name=column, **options)
        except TypeError as exc:
            raise SDCError(f"column {column!r}: hierarchy rule {rule!r}: {exc}") from None
    if isinstance(h, Mapping):
        return Hierarchy.from_mapping(h, name=column)
    if isinstance(h, pl.DataFrame):
        return Hierarchy([h.get_column(c).to_list() for c in h.columns], name=column)
    raise SDCError(f"column {column!r}: hierarchy must be a Hierarchy, a CSV path, a mapping, a rule "
                   f"{{'rule': ...}} or a DataFrame of levels; got {type(h).__name__}")


def split_pairs(text: str) -> list[str]:
    """``COLUMN=PATH`` pairs of one text, split at each comma that starts a new ``NAME=`` (a
    comma inside a path stays).

    >>> split_pairs("age=h,x/age h.csv,sex=s.csv")
    ['age=h,x/age h.csv', 'sex=s.csv']
    """
    import re

    return [p for p in re.split(r",(?=[^,=]*=)", text) if p.strip()]


def hierarchy_mapping(hierarchies: object) -> Mapping[str, object]:
    """``hierarchies`` as a mapping {column: hierarchy}; also from the CLI's ``COLUMN=PATH``
    texts (a list of them, or one text of pairs separated by commas: a comma followed by
    ``COLUMN=`` starts a new pair, so a path may hold a comma; a path holding ``,NAME=`` is
    given as a mapping / JSON object).

    >>> hierarchy_mapping("age=h,x/age h.csv,sex=s.csv")
    {'age': 'h,x/age h.csv', 'sex': 's.csv'}
    """
    if isinstance(hierarchies, str):
        hierarchies = split_pairs(hierarchies)
    if isinstance(hierarchies, (list, tuple)) and all(isinstance(x, str) for x in hierarchies):
        out: dict[str, object] = {}
        hint = (" (a path holding ',NAME=' goes in a JSON object: {\"age\": \"dir,x=1/age.csv\"})"
                if len(hierarchies) > 1 else "")
        for item in hierarchies:
            col, sep, path = item.partition("=")
            if not sep or not col.strip() or not path.strip():
                raise SDCError(f"hierarchies: expected COLUMN=PATH (an ARX hierarchy CSV), got {item!r}{hint}")
            if col.strip() in out:
                raise SDCError(f"hierarchies: column {col.strip()!r} is given twice")
            out[col.strip()] = path.strip()
        hierarchies = out
    if not isinstance(hierarchies, Mapping) or not hierarchies:
        raise SDCError("hierarchies must be a non-empty mapping {column: hierarchy}")
    return hierarchies
