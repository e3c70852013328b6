"""The SDC problem: the roles of the columns declared once, the steps applied one after the
other, each returning a new (immutable) problem, with undo, risk and utility on the current
release and a log of what every step did (after sdcMicro's ``createSdcObj`` / ``undolast``).

Every step is an operation of :mod:`polars_sdc.operations`; the roles fill its parameters
that the caller leaves out (``suppress``'s ``on`` from ``keys``, ``by`` from ``strata``,
``rank_swap``'s ``on`` from ``numeric``, ``pram``'s ``on`` from ``pram``, ...). A step runs
through the ``df.sdc`` / ``lf.sdc`` method of the same name, so on a LazyFrame the release
stays a lazy plan; measures and the log are computed on the collected data, one step at a
time (each step applied once to its parent's collected data, which equals the lazy result by
the namespace's contract). A random step must be given its ``seed``: the log, undo and a
recipe replay it.

>>> import polars as pl, polars_sdc
>>> df = pl.DataFrame({"a": ["x", "x", "x", "y"], "b": ["u", "u", "v", "v"], "w": [2.0, 2.0, 3.0, 3.0]})
>>> p = df.sdc.problem(keys=["a", "b"], weight="w")
>>> q = p.suppress(k=2)
>>> q.release().rows()
[('x', 'u', 2.0), ('x', 'u', 2.0), (None, 'v', 3.0), ('y', 'v', 3.0)]
>>> q.log.select("step", "operation", "suppressed", "k_anonymity").rows()
[(0, 'original', 0, 1.0), (1, 'suppress', 1, 2.0)]
>>> q.undo().release().equals(df)
True
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .._errors import SDCError
from .._signature import unknown_keyword
from ..loss.sse import sse_sst  # the log's SSE/SST (the report uses it too); public here as before

#: roles naming several columns, and roles naming one
LIST_ROLES = ("keys", "numeric", "strata", "pram")
ONE_ROLES = ("weight", "household", "sensitive")
#: the parameters that name what a step masks: without them (and without their role) a step is refused
TARGETS = ("on",)


@dataclass(frozen=True)
class Roles:
    """Which columns play which part: ``keys`` (quasi-identifiers), ``numeric`` (numeric
    variables to perturb), ``weight`` (sampling weight), ``household`` (household id),
    ``strata``, ``sensitive`` and ``pram`` (categorical variables to post-randomise)."""

    keys: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()
    weight: str | None = None
    household: str | None = None
    strata: tuple[str, ...] = ()
    sensitive: str | None = None
    pram: tuple[str, ...] = ()

    @classmethod
    def build(cls, schema: pl.Schema, **roles: Any) -> Roles:
        """The roles checked against ``schema``: every column exists, a one-column role is one
        name, a column is not both a key and a numeric variable."""
        from .._columns import resolve_columns

        out: dict[str, Any] = {}
        for name, value in roles.items():
            if name not in LIST_ROLES + ONE_ROLES:
                raise SDCError(unknown_keyword("problem", name, list(LIST_ROLES + ONE_ROLES)))
            if value is None:
                continue
            if name in ONE_ROLES:
                if not isinstance(value, str):
                    raise SDCError(f"role {name}: expected one column name, got {value!r}")
                if value not in schema:
                    raise SDCError(f"column {value!r} (role {name}): not in the frame")
                out[name] = value
            else:
                out[name] = tuple(resolve_columns(schema, value, what=f"{name} (role)", default="error"))
        both = set(out.get("keys", ())) & set(out.get("numeric", ()))
        if both:
            raise SDCError(f"column {sorted(both)[0]!r}: both a key and a numeric variable; give it one role")
        for one in ("sensitive", "weight", "household"):   # a class is read on the keys, without these
            if out.get(one) in out.get("keys", ()):
                raise SDCError(f"column {out[one]!r}: both a key and the {one} column; give it one role")
        hh = out.get("household")
        for many in ("numeric", "pram", "strata"):   # the id links the members: never masked, never a stratum
            if hh is not None and hh in out.get(many, ()):
                raise SDCError(f"column {hh!r}: both the household id and in the {many} role; the household id "
                               "links the members and is never masked nor a stratum: give it one role")
        return cls(**out)

    def as_dict(self) -> dict[str, Any]:
        """The declared roles (lists for the several-column ones), empty ones left out."""
        out: dict[str, Any] = {}
        for name in LIST_ROLES[:2] + ("weight", "household", "strata", "sensitive", "pram"):
            v = getattr(self, name)
            if v:
                out[name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True)
class Step:
    """One applied step: the operation's name, the options the caller gave (recorded in the
    log and the recipe) and the arguments it ran with (the roles filled in)."""

    operation: str
    options: Mapping[str, Any]
    arguments: Mapping[str, Any]


class Problem:
    """An SDC problem on a DataFrame or LazyFrame (see the module docstring). Build it with
    ``df.sdc.problem(keys=..., ...)`` or ``Problem(frame, keys=..., ...)``; each step method
    returns a new problem (sdcMicro's ``createSdcObj``; docs/process.md).

    >>> import polars as pl, polars_sdc
    >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
    >>> p = polars_sdc.Problem(df, keys=["region", "sex"]).suppress(k=2)
    >>> p
    Problem (eager), keys: region, sex
      1. suppress(k=2)
    >>> p.risk()["k_anonymity"], p.undo().risk()["k_anonymity"]
    (2, 1)
    """

    __slots__ = ("_frame", "_roles", "_parent", "_step", "_cache")

    def __init__(
        self,
        frame: pl.DataFrame | pl.LazyFrame,
        *,
        keys: Any = None,
        numeric: Any = None,
        weight: str | None = None,
        household: str | None = None,
        strata: Any = None,
        sensitive: str | None = None,
        pram: Any = None,
        **other: Any,
    ) -> None:
        if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
            raise SDCError(f"a problem is built on a DataFrame or LazyFrame, got {type(frame).__name__}")
        if not _installed:
            _install_steps()
        schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
        roles = Roles.build(schema, keys=keys, numeric=numeric, weight=weight, household=household,
                            strata=strata, sensitive=sensitive, pram=pram, **other)
        if roles.weight is not None:    # refused here, with the message the measures give
            from ..risk.weights import check_weights

            check_weights(frame, roles.weight)    # a LazyFrame: one two-count aggregation of the weight column
        self._init(frame, roles, None, None)

    def _init(self, frame: Any, roles: Roles, parent: Problem | None, step: Step | None) -> None:
        set_ = object.__setattr__
        set_(self, "_frame", frame)
        set_(self, "_roles", roles)
        set_(self, "_parent", parent)
        set_(self, "_step", step)
        set_(self, "_cache", {})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Problem is immutable: every step returns a new one")

    # -- what it holds ----------------------------------------------------------------------
    @property
    def roles(self) -> Roles:
        return self._roles

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps applied so far, first first."""
        out = []
        node: Problem | None = self
        while node is not None and node._step is not None:
            out.append(node._step)
            node = node._parent
        return tuple(reversed(out))

    @property
    def lazy(self) -> bool:
        return isinstance(self._frame, pl.LazyFrame)

    def original(self) -> pl.DataFrame | pl.LazyFrame:
        """The frame the problem was built on.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
        >>> df.sdc.problem(keys=["region", "sex"]).suppress(k=2).original().equals(df)
        True
        """
        node = self
        while node._parent is not None:
            node = node._parent
        return node._frame

    def release(self) -> pl.DataFrame | pl.LazyFrame:
        """The masked frame after every step (a LazyFrame plan when the input was lazy;
        sdcMicro's ``extractManipData``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
        >>> df.sdc.problem(keys=["region", "sex"]).suppress(k=2).release()["sex"].to_list()
        [None, 'f', 'm', 'm', 'f']
        >>> type(df.lazy().sdc.problem(keys=["region", "sex"]).suppress(k=2).release()).__name__
        'LazyFrame'
        """
        return self._frame

    @property
    def suppressed_as(self) -> str | None:
        """The label a ``generalize`` step gave the records it suppressed (``"*"`` unless its
        ``suppressed_as=`` said otherwise; the latest such step's), None without one: the
        measures of this problem (:meth:`risk`, :attr:`log`, :meth:`sign_off`) read a record of
        the release whose every key is that label as every key missing, and a problem that
        never generalised reads every value as written (a genuine ``"*"`` code is a value).

        >>> import polars as pl, polars_sdc
        >>> p = pl.DataFrame({"age": [21, 23, 25, 38]}).sdc.problem(keys="age")
        >>> p.suppressed_as, p.generalize(hierarchies={"age": {"rule": "intervals", "widths": [10, 20]}}).suppressed_as
        (None, '*')
        """
        for s in reversed(self.steps):
            if s.operation == "generalize":
                from ..operations import OPERATIONS

                return s.arguments.get("suppressed_as", OPERATIONS["generalize"].option("suppressed_as").default)
        return None

    def undo(self) -> Problem:
        """The problem before the last step (exactly that object; sdcMicro's ``undolast``).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
        >>> p = df.sdc.problem(keys=["region", "sex"])
        >>> p.suppress(k=2).undo() is p
        True
        """
        if self._parent is None:
            raise SDCError("undo: no step to undo")
        return self._parent

    def __repr__(self) -> str:
        roles = "; ".join(f"{k}: {', '.join(v) if isinstance(v, list) else v}" for k, v in self._roles.as_dict().items())
        lines = [f"Problem ({'lazy' if self.lazy else 'eager'}), {roles or 'no roles'}"]
        for i, s in enumerate(self.steps, 1):
            lines.append(f"  {i}. {s.operation}({', '.join(f'{k}={v!r}' for k, v in s.options.items())})")
        return "\n".join(lines)

    # -- steps ----------------------------------------------------------------------------------
    def apply(self, operation: str, **options: Any) -> Problem:
        """Apply the step ``operation`` (a name of :func:`polars_sdc.operations.steps`) with
        ``options``; parameters left out are filled from the roles.

        >>> import polars as pl, polars_sdc
        >>> p = pl.DataFrame({"a": [1, 2, 3, 4]}).sdc.problem(numeric="a")
        >>> p.apply("top_bottom_code", on="a", upper=3).release()["a"].to_list()
        [1, 2, 3, 3]
        """
        from ..operations import OPERATIONS

        op = OPERATIONS[operation]
        if not op.step:
            raise SDCError(f"{operation} is not a masking step (steps: {', '.join(_step_names())})")
        import copy

        # the step's own copy: a list the caller changes later must not change the lazy plan, the
        # replays of data() / generalization() nor the log and the recipe
        options = op.canonical(options)   # a deprecated option name runs (warning); logged by its new name
        arguments = step_arguments(op, self._roles, copy.deepcopy(options))
        if (operation != "generalize" and "suppressed_as" in op.names() and "suppressed_as" not in options
                and self.suppressed_as is not None):   # a step on a generalised release reads its label
            arguments["suppressed_as"] = self.suppressed_as
        elif "suppressed_as" not in op.names() and self.suppressed_as is not None:
            self._check_label_not_read(operation, arguments)
        _check_strata_covered(op, self._roles, arguments, self._frame.collect_schema())
        frame = getattr(self._frame.sdc, op.method)(**arguments)
        child = object.__new__(Problem)
        child._init(frame, self._roles, self, Step(operation, copy.deepcopy(options), arguments))
        return child

    def _check_label_not_read(self, operation: str, arguments: Mapping[str, Any]) -> None:
        """A step that cannot keep a generalisation's suppression label (no ``suppressed_as``,
        e.g. microaggregation, which releases a group's most frequent category) refused on a
        generalised column: it would read the label as a category, release a suppressed record's
        key or suppress a released one."""
        from .._columns import resolve_columns

        step = next(s for s in reversed(self.steps) if s.operation == "generalize")
        generalised = set(step.arguments.get("on") or ()) | set(step.arguments.get("hierarchies") or ())
        schema = self._frame.collect_schema()
        for name in TARGETS:
            value = arguments.get(name)
            if value is None:
                continue
            try:
                cols = resolve_columns(schema, value, what=name)
            except SDCError:
                continue   # the step's own check names the problem
            hit = [c for c in cols if c in generalised]
            if hit:
                raise SDCError(f"{operation}: column {hit[0]!r} was generalised (its suppressed records hold "
                               f"{self.suppressed_as!r}); {operation} would read the label as a category and "
                               "release a suppressed record's key or suppress a released one. Mask the other "
                               "columns, or undo the generalize step")

    # -- measures -------------------------------------------------------------------------------
    def data(self) -> pl.DataFrame:
        """The current release as a DataFrame (collected once; each step is applied once to its
        parent's collected data, which equals the lazy plan's result).

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
        >>> p = df.lazy().sdc.problem(keys=["region", "sex"]).suppress(k=2)
        >>> p.data().equals(p.release().collect())
        True
        """
        if "data" not in self._cache:
            if self._parent is None:
                f = self._frame
                self._cache["data"] = f.collect() if isinstance(f, pl.LazyFrame) else f
            elif not self.lazy:
                self._cache["data"] = self._frame
            else:
                from ..operations import OPERATIONS

                step = self._step
                parent = self._parent.data()
                self._cache["data"] = getattr(parent.sdc, OPERATIONS[step.operation].method)(**step.arguments)
        return self._cache["data"]

    def risk(self, **options: Any) -> Any:
        """Every disclosure-risk measure on the keys of the current release (a
        :class:`~polars_sdc.risk.measure.RiskResult`; ``df.sdc.risk`` with ``on``, ``weight``
        and ``household`` from the roles; SUDA2 off unless ``suda=True``), cached per step.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["m", "f", "m", "m", "f"]})
        >>> r = df.sdc.problem(keys=["region", "sex"]).risk()
        >>> r["k_anonymity"], r["sample_uniques"], r["global_risk"]
        (1, 3, 0.8)
        """
        if not self._roles.keys:
            raise SDCError("risk: no keys role declared")
        from ..operations import OPERATIONS

        op = OPERATIONS["risk"]
        label = {"suppressed_as": self.suppressed_as} if self.suppressed_as is not None else {}
        arguments = step_arguments(op, self._roles, {"suda": False, "on": self.class_columns(), **label, **options})
        cache_key = ("risk", json.dumps(arguments, sort_keys=True, default=repr))
        if cache_key not in self._cache:
            on = arguments.pop("on")
            self._cache[cache_key] = self.data().sdc.risk(on, **arguments)
        return self._cache[cache_key]

    def class_columns(self) -> list[str]:
        """The columns a released class is read on: the keys, then the strata that are not keys
        (a stratum is released with the data, so a class within a stratum is what an intruder
        sees; the risk, the log and the sign-off count it).

        >>> import polars as pl, polars_sdc
        >>> pl.DataFrame({"a": ["x"], "s": ["N"]}).sdc.problem(keys="a", strata="s").class_columns()
        ['a', 's']
        """
        r = self._roles
        return [*r.keys, *(c for c in r.strata if c not in r.keys)]

    def utility(self) -> pl.DataFrame:
        """Per variable with a role (keys, numeric, pram, sensitive): values suppressed and
        changed against the original, and for a numeric variable still numeric its SSE/SST
        (z-scored with the original's mean and sd; a suppressed value counts as the mean), with
        ``(all numeric)`` the whole numeric role's. Cached per step.

        >>> import polars as pl, polars_sdc
        >>> p = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}).sdc.problem(numeric="x")
        >>> p.apply("top_bottom_code", on="x", upper=3.0).utility().with_columns(pl.col("sse_sst").round(12)).rows()
        [('x', 'numeric', 0, 1, 0.2), ('(all numeric)', 'numeric', 0, 1, 0.2)]
        """
        if "utility" in self._cache:
            return self._cache["utility"]
        orig, rel = self._root().data(), self.data()
        r = self._roles
        variables = list(dict.fromkeys([*r.keys, *r.numeric, *r.pram, *([r.sensitive] if r.sensitive else [])]))
        rows = []
        for c in variables:
            role = "numeric" if c in r.numeric else "key" if c in r.keys else "pram" if c in r.pram else "sensitive"
            sup, chg = _column_effects(orig.get_column(c), rel.get_column(c))
            loss = sse_sst(orig, rel, [c]) if c in r.numeric else None
            rows.append((c, role, sup, chg, loss))
        if r.numeric:
            numeric = [row for row in rows if row[1] == "numeric"]
            rows.append(("(all numeric)", "numeric", sum(x[2] for x in numeric), sum(x[3] for x in numeric),
                         sse_sst(orig, rel, list(r.numeric))))
        out = pl.DataFrame(rows, schema={"variable": pl.String, "role": pl.String, "suppressed": pl.Int64,
                                         "changed": pl.Int64, "sse_sst": pl.Float64}, orient="row")
        self._cache["utility"] = out
        return out

    def _l_diversity(self) -> float | None:
        """The release's distinct l-diversity of the sensitive variable on the keys (the
        smallest class's number of distinct sensitive values; ``df.sdc.l_diversity``); after a
        ``generalize`` step its suppressed records are in no released class (ARX's reading;
        None when every record is suppressed). A null sensitive value is no sensitive value:
        the records with one are measured (the sign-off's rule, :func:`polars_sdc.report`)."""
        if "l_diversity" not in self._cache:
            keys, s = self.class_columns(), self._roles.sensitive
            out = (self.data().select([*keys, s]).filter(pl.col(s).is_not_null())
                   .sdc.l_diversity(keys, s, suppressed_as=self.suppressed_as))
            low = out.get_column("l_diversity").min()
            self._cache["l_diversity"] = None if low is None else float(low)
        return self._cache["l_diversity"]

    def generalization(self) -> Any:
        """The :class:`~polars_sdc.generalize.GeneralizationResult` of the last ``generalize``
        step (chosen levels, records suppressed, metric value, the lattice), computed on that
        step's input with its arguments (the same search, so the same release); None without
        such a step. Cached.

        >>> import polars as pl, polars_sdc
        >>> p = pl.DataFrame({"age": [21, 23, 25, 38]}).sdc.problem(keys="age")
        >>> p.generalize(hierarchies={"age": {"rule": "intervals", "widths": [10, 20], "start": 0}}, k=2).generalization().levels
        {'age': 2}
        """
        node: Problem | None = self
        while node is not None and (node._step is None or node._step.operation != "generalize"):
            node = node._parent
        if node is None or node._parent is None:
            return None
        if "generalization" not in node._cache:
            from ..generalize.release import generalize

            node._cache["generalization"] = generalize(node._parent.data(), **node._step.arguments)
        return node._cache["generalization"]

    def _root(self) -> Problem:
        node = self
        while node._parent is not None:
            node = node._parent
        return node

    def _effects(self) -> dict[str, Any]:
        """What this problem's last step changed against its parent (zeros for the root)."""
        if "effects" not in self._cache:
            if self._parent is None:
                self._cache["effects"] = {"variables": [], "suppressed": 0, "changed": 0, "records_reclassified": 0}
            else:
                self._cache["effects"] = step_effects(self._parent.data(), self.data(), self.class_columns(),
                                                      self.suppressed_as, self._parent.suppressed_as)
        return self._cache["effects"]

    @property
    def log(self) -> pl.DataFrame:
        """One row per step (step 0: the original): the operation, its parameters (JSON), the
        values it suppressed and changed (in total and per variable), the records whose key
        combination it changed, then the risk on the keys (k-anonymity with nulls matching any
        value, sample uniques, expected re-identifications, global risk; household risk with a
        household role) and the numeric SSE/SST after the step."""
        nodes = []
        node: Problem | None = self
        while node is not None:
            nodes.append(node)
            node = node._parent
        rows = []
        for i, n in enumerate(reversed(nodes)):
            e = n._effects()
            row: dict[str, Any] = {
                "step": i,
                "operation": "original" if n._step is None else n._step.operation,
                "parameters": "{}" if n._step is None else json.dumps(_plain(n._step.options), sort_keys=False),
                "suppressed": e["suppressed"],
                "changed": e["changed"],
                "by_variable": e["variables"],
                "records_reclassified": e["records_reclassified"],
            }
            if self._roles.keys:
                risk = n.risk()
                row["k_anonymity"] = float(risk["k_anonymity"])
                row["sample_uniques"] = risk["sample_uniques"]
                row["expected_reidentifications"] = risk["expected_reidentifications"]
                row["global_risk"] = risk["global_risk"]
                if self._roles.household:
                    row["household_risk"] = risk["household_risk"]
                if self._roles.sensitive:
                    row["l_diversity"] = n._l_diversity()
            row["sse_sst"] = sse_sst(n._root().data(), n.data(), list(self._roles.numeric)) if self._roles.numeric else None
            rows.append(row)
        schema: dict[str, Any] = {
            "step": pl.UInt32, "operation": pl.String, "parameters": pl.String, "suppressed": pl.Int64,
            "changed": pl.Int64,
            "by_variable": pl.List(pl.Struct({"variable": pl.String, "suppressed": pl.Int64, "changed": pl.Int64})),
            "records_reclassified": pl.Int64,
        }
        if self._roles.keys:
            schema.update({"k_anonymity": pl.Float64, "sample_uniques": pl.Int64,
                           "expected_reidentifications": pl.Float64, "global_risk": pl.Float64})
            if self._roles.household:
                schema["household_risk"] = pl.Float64
            if self._roles.sensitive:
                schema["l_diversity"] = pl.Float64
        schema["sse_sst"] = pl.Float64
        return pl.DataFrame(rows, schema=schema)

    def sign_off(self, **options: Any) -> Any:
        """The release report a board signs (:func:`polars_sdc.report`, a
        :class:`~polars_sdc.risk.report.RiskReport`) built from the problem: the original against
        the release, ``on``/``numeric``/``weight``/``household``/``sensitive`` from the roles, the
        PRAM variables as further categorical columns, ``steps=`` this log and ``k`` the k of the
        last ``suppress`` or ``generalize`` step (3 without one), and after a ``generalize`` step
        its :meth:`generalization` (levels, records suppressed, metric); ``options`` go to :func:`~polars_sdc.report`
        (``threshold=``, ``title=``, ``k=``, ...). ``print()`` it, show it in a notebook, or
        ``.save("signoff.html")``.

        >>> import polars as pl, polars_sdc
        >>> df = pl.DataFrame({"a": ["x", "x", "x", "y", "y", "z"], "b": ["u", "u", "v", "v", "v", "v"]})
        >>> df.sdc.problem(keys=["a", "b"]).suppress(k=2).sign_off().verdict
        'After 1 step (suppress): 2-anonymous on 2 keys with missing values as wildcards; expected re-identifications 4 -> 2.42 (global risk 66.7 % -> 40.3 %); 1 value suppressed, 0 values changed in keys/categorical variables.'
        """
        from ..risk.report import report

        r = self._roles
        if not r.keys:
            raise SDCError("sign_off: no keys role declared (the report measures the risk on the keys)")
        k = next((s.arguments.get("k", 2) for s in reversed(self.steps) if s.operation in ("suppress", "generalize")),
                 None)
        arguments: dict[str, Any] = {
            "on": self.class_columns(), "numeric": list(r.numeric) or None, "weight": r.weight, "household": r.household,
            "sensitive": r.sensitive, "categorical": [c for c in r.pram if c not in r.keys] or None,
            "steps": self.log, "k": 3 if k is None else k, "title": "Release sign-off",
            "suppressed_as": self.suppressed_as}
        gen = self.generalization()
        if gen is not None:
            arguments["generalization"] = gen
        arguments.update(options)
        return report(self.original(), self.release(), **arguments)

    # -- recipes --------------------------------------------------------------------------------
    def to_recipe(self, path: Any = None, *, format: str = "toml") -> str:
        """The roles and steps as a recipe (TOML, or ``format="json"``) for
        :func:`polars_sdc.run_recipe` and ``polars-sdc run``; also written to ``path`` if given.

        >>> import polars as pl, polars_sdc
        >>> p = pl.DataFrame({"a": ["x", "y"]}).sdc.problem(keys="a").suppress(k=1)
        >>> print(p.to_recipe())
        # polars_sdc recipe: polars_sdc.run_recipe(recipe, frame) or `polars-sdc run RECIPE IN OUT`
        version = 1
        <BLANKLINE>
        [roles]
        keys = ["a"]
        <BLANKLINE>
        [[steps]]
        operation = "suppress"
        k = 1
        <BLANKLINE>
        """
        from .recipe import recipe_text

        text = recipe_text(self._roles.as_dict(), [(s.operation, s.options) for s in self.steps], format=format)
        if path is not None:
            from pathlib import Path

            Path(path).write_text(text, encoding="utf-8")
        return text


def step_arguments(op: Any, roles: Roles, options: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments a step runs with: ``options`` (checked against the declaration; a random
    step needs its seed) with the parameters left out filled from ``roles``."""
    names = op.names()
    for key in options:
        if key not in names:
            raise SDCError(unknown_keyword(op.name, key, names))
    if op.random and options.get("seed") is None:
        raise SDCError(f"{op.name}: give seed= (a problem's steps are replayed by the log, undo and recipes)")
    arguments = dict(options)
    for o in op.options:
        if o.name in arguments or o.role is None:
            continue
        value = getattr(roles, o.role)
        if value:
            arguments[o.name] = list(value) if isinstance(value, tuple) else value
        elif o.name in TARGETS:
            raise SDCError(f"{op.name}: no {o.role!r} role declared; give {o.name}=")
    for o in op.options:
        if o.required and o.name not in arguments:
            raise SDCError(f"{op.name}: {o.name}= is required ({o.help})")
    return arguments


def _check_strata_covered(op: Any, roles: Roles, arguments: Mapping[str, Any], schema: pl.Schema) -> None:
    """A k-anonymity step without strata (``generalize``: no ``by=``) in a problem with a strata
    role counts its classes over the whole file, so a class within a stratum could hold fewer
    than k records: refused unless every stratum column is among its quasi-identifiers."""
    # only the full-domain generalisation releases classes of k without strata (laplace's k
    # calibrates the noise scale, Pk-anonymity, and is no class size)
    if not roles.strata or "hierarchies" not in op.names() or any(o.role == "strata" for o in op.options):
        return
    from .._columns import resolve_columns

    on = arguments.get("on")
    if on is None and "hierarchies" in arguments:
        from ..generalize.hierarchy import hierarchy_mapping

        cols = [c for c in hierarchy_mapping(arguments["hierarchies"]) if c != arguments.get("sensitive")]
    else:
        cols = resolve_columns(schema, on, kind="any", default="error") if on is not None else []
    missing = [c for c in roles.strata if c not in cols]
    if missing:
        raise SDCError(f"{op.name}: the strata role ({', '.join(map(repr, missing))}) is not among its quasi-identifiers "
                       f"and {op.name} takes no strata, so a class within a stratum could hold fewer than k records; "
                       f"add the strata to on= with a one-level hierarchy (e.g. Hierarchy([values]): never generalised) "
                       "or leave the strata role out of this problem")


def _step_names() -> list[str]:
    from ..operations import steps

    return [op.name for op in steps()]


def _make_step(name: str) -> Any:
    def step(self: Problem, **options: Any) -> Problem:
        return self.apply(name, **options)

    step.__name__ = step.__qualname__ = name
    return step


_installed = False


def _install_steps() -> None:
    """One method per step operation (``problem.suppress(k=3)`` = ``problem.apply("suppress",
    k=3)``), its signature the declaration's options (keyword-only; role-filled ones optional).
    Run when the first problem is built, so ``import polars_sdc`` loads no method module."""
    import inspect

    global _installed
    _installed = True

    from ..operations import steps

    for op in steps():
        fn = _make_step(op.name)
        params = []
        for o in op.options:
            default = None if (o.required and o.role is not None) else (inspect.Parameter.empty if o.required else o.default)
            params.append(inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=default))
        fn.__signature__ = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *params])  # type: ignore[attr-defined]
        roles = ", ".join(f"{o.name} <- {o.role}" for o in op.options if o.role)
        fn.__doc__ = f"{op.summary} (``df.sdc.{op.method}``; roles: {roles or 'none'}); returns a new Problem."
        setattr(Problem, op.name, fn)


# -- effects and loss ---------------------------------------------------------------------------
def _column_effects(before: pl.Series, after: pl.Series) -> tuple[int, int]:
    """(values suppressed: null after, not before; values changed: non-null both, different)."""
    if before.dtype != after.dtype:  # as text (a generalised key's level-0 label equals its value)
        from ..generalize.release import label_text

        before, after = label_text(before), label_text(after)
    sup = int((after.is_null() & before.is_not_null()).sum())
    chg = int((after.is_not_null() & before.is_not_null() & (after != before)).sum())
    return sup, chg


def step_effects(before: pl.DataFrame, after: pl.DataFrame, keys: Sequence[str],
                 suppressed_as: str | None = None, before_suppressed_as: str | None = None) -> dict[str, Any]:
    """What turned ``before`` into ``after`` (same rows, same order): per column the values
    suppressed and changed (columns with neither left out), their totals, and the records whose
    key combination changed (``keys``; a suppressed key counts as a change; with
    ``suppressed_as``, the label of a generalisation's suppressed records (``"*"``), a record
    whose keys are all that label counts as its keys suppressed; ``before_suppressed_as``: the
    same for ``before``, a release of an earlier generalisation, so a record it suppressed is not
    counted again when a later step turns its labels into nulls).

    >>> b = pl.DataFrame({"a": ["x", "y", "z"], "n": [1, 2, 3]})
    >>> step_effects(b, pl.DataFrame({"a": ["x", None, "z"], "n": [1, 2, 9]}), ["a"])
    {'variables': [{'variable': 'a', 'suppressed': 1, 'changed': 0}, {'variable': 'n', 'suppressed': 0, 'changed': 1}], 'suppressed': 1, 'changed': 1, 'records_reclassified': 1}
    """
    if before.height != after.height:
        raise SDCError(f"a step changed the row count ({before.height} -> {after.height})")
    if keys:  # a record of a generalised release whose keys are all its label was suppressed
        from ..risk.suppressed import suppressed_as_missing

        after = suppressed_as_missing(after, [c for c in keys if c in after.columns], suppressed_as)
        before = suppressed_as_missing(before, [c for c in keys if c in before.columns], before_suppressed_as)
    variables = []
    for c in after.columns:
        if c not in before.columns:
            continue
        sup, chg = _column_effects(before.get_column(c), after.get_column(c))
        if sup or chg:
            variables.append({"variable": c, "suppressed": sup, "changed": chg})
    moved = np.zeros(before.height, dtype=bool)
    for c in keys:
        b, a = before.get_column(c), after.get_column(c)
        if b.dtype != a.dtype:
            from ..generalize.release import label_text

            b, a = label_text(b), label_text(a)
        moved |= b.ne_missing(a).to_numpy()
    return {"variables": variables, "suppressed": sum(v["suppressed"] for v in variables),
            "changed": sum(v["changed"] for v in variables), "records_reclassified": int(moved.sum())}


def _plain(value: Any) -> Any:
    """Step options as JSON-able values (tuples and arrays as lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pl.Expr):
        return str(value)
    if hasattr(value, "to_recipe_value"):  # a generalisation Hierarchy: {value: [labels]}
        return _plain(value.to_recipe_value())
    if isinstance(value, pl.DataFrame):    # a hierarchy given as its table of levels
        from ..generalize.hierarchy import Hierarchy

        return _plain(Hierarchy([value.get_column(c).to_list() for c in value.columns]).to_recipe_value())
    from pathlib import PurePath

    if isinstance(value, PurePath):        # a hierarchy CSV given as a path
        return str(value)
    return value
