"""One declaration per public operation: its name, the module function it runs, its options
(type, default, choices or range, help text) and which role of an SDC problem fills which
parameter (scikit-learn's ``_parameter_constraints`` is the model).

The options and their defaults are read from the module function's signature
(:func:`inspect.signature`), so a default is written once, in the function; the declaration
adds what a signature cannot say: the kind of value (for the CLI and recipes), the choices
or range, the help text and the role. Three faces read it:

- the ``polars-sdc`` subcommands (:mod:`polars_sdc.commands`: one skeleton, the flags and
  their defaults generated from :data:`OPERATIONS`);
- the SDC process (:class:`polars_sdc.process.Problem`: a step per operation, roles filled in)
  and its recipes (an unknown step or option is refused naming the line);
- the namespace's explicit signatures: ``tests/test_typing.py`` checks that every ``df.sdc``
  method's parameters (names, order, kinds, defaults) equal its declaration, so drift fails;
  an unknown keyword names the method and the closest valid name
  (:func:`polars_sdc._signature.unknown_keyword`).

>>> op = OPERATIONS["suppress"]
>>> op.function.__name__, [(o.name, o.default) for o in op.options][:3]
('suppress_frame', [('k', <required>), ('on', <required>), ('importance', None)])
>>> op.option("on").role, OPERATIONS["risk"].option("weight").role
('keys', 'weight')
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._errors import SDCError
from ._signature import unknown_keyword


class _Required:
    """The default of an option the caller must give."""

    def __repr__(self) -> str:
        return "<required>"


REQUIRED: Any = _Required()

#: the roles of an SDC problem (:class:`polars_sdc.process.Problem`)
ROLES = ("keys", "numeric", "weight", "household", "strata", "sensitive", "pram")

#: the kinds of option value (how the CLI parses a flag and a recipe checks a value)
KINDS = (
    "int", "float", "bool", "str", "choice", "column", "columns", "number_or_map", "map", "floats_or_map",
    "ints", "json",
)


@dataclass(frozen=True)
class Option:
    """One parameter of an operation. ``default`` is :data:`REQUIRED` when the caller must give
    it; ``role`` names the problem role that fills it when not given."""

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    role: str | None = None
    positional: bool = False
    #: None is a value of its own (not "not given"), e.g. generalize's ``suppressed_as``
    nullable: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Operation:
    """A public operation: ``method`` is its ``df.sdc`` method, ``function`` the module
    function that runs it on a DataFrame (its signature gives the options after the frame)."""

    name: str
    function: Callable[..., Any]
    summary: str
    options: tuple[Option, ...]
    step: bool = True
    random: bool = False
    command: str | None = None
    #: the option naming numeric input columns (a CSV column of text there is refused by the CLI)
    numeric: str | None = None
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the ``df.sdc`` method that returns the released frame, when not the operation's name
    method_name: str | None = None

    @property
    def method(self) -> str:
        return self.method_name or self.name

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise SDCError(unknown_keyword(self.name, name, self.names()))

    def names(self) -> list[str]:
        return [o.name for o in self.options]

    @property
    def renamed(self) -> dict[str, str]:
        """The deprecated option names of its ``df.sdc`` method (old -> new;
        :func:`polars_sdc._signature.deprecated`): a step, a recipe or a flag with an old name
        still runs, warning."""
        from ._signature import renamed_in_namespace

        return renamed_in_namespace(self.method)

    def canonical(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` with every deprecated name replaced by its new one (warning once each).

        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter("always")
        ...     OPERATIONS["suppress_risky"].canonical({"risk_above": 0.1})
        {'threshold': 0.1}
        >>> str(w[0].message)
        'suppress_risky(): risk_above= is deprecated; use threshold= (the same option)'
        """
        from ._signature import renamed_options

        return renamed_options(self.method, self.renamed, options)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options if not o.required}


def _parameters(fn: Callable[..., Any], skip_first: int) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())[skip_first:]
    return [p for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]


def _declare(
    name: str, function: Callable[..., Any], summary: str, specs: Mapping[str, Mapping[str, Any]], *,
    skip: Sequence[str] = (), extra: Sequence[tuple[Callable[..., Any], int]] = (),
    extra_defaults: Mapping[str, Any] | None = None, **attributes: Any,
) -> Operation:
    """An :class:`Operation` whose options are ``function``'s parameters after the frame (and
    those of the ``extra`` (function, parameters to skip) sources), each described by its
    entry in ``specs`` (kind, help, choices, low/high, role); an undescribed parameter or a
    spec without a parameter is an error at import, so a new parameter cannot be forgotten."""
    params: list[tuple[inspect.Parameter, bool]] = [
        (p, p.kind == p.POSITIONAL_OR_KEYWORD) for p in _parameters(function, 1) if p.name not in skip
    ]
    for fn, n in extra:
        params += [(p, False) for p in _parameters(fn, n) if p.name not in skip]
    defaults = dict(extra_defaults or {})
    options = []
    seen = set()
    for p, positional in params:
        if p.name in seen:
            continue
        seen.add(p.name)
        if p.name not in specs:
            raise TypeError(f"operation {name!r}: parameter {p.name!r} of {function.__qualname__} is not declared")
        default = REQUIRED if p.default is p.empty else p.default
        options.append(Option(p.name, default=default, positional=positional, **specs[p.name]))
    for extra_name, default in defaults.items():  # options a signature takes through **options
        seen.add(extra_name)
        options.append(Option(extra_name, default=default, **specs[extra_name]))
    unused = set(specs) - seen
    if unused:
        raise TypeError(f"operation {name!r}: declared options {sorted(unused)} are not parameters")
    return Operation(name, function, summary, tuple(options), **attributes)


def _spec(kind: str, help: str, **more: Any) -> dict[str, Any]:
    if kind not in KINDS:
        raise TypeError(f"unknown option kind {kind!r}")
    return {"kind": kind, "help": help, **more}


# -- the specs shared by several operations ---------------------------------------------------
_BY = _spec("columns", "strata columns: each stratum is masked on its own", role="strata")
_SEED = _spec("int", "seed of the random draws (the same seed gives the same release)", low=0)
_KEY = _spec("column", "unique id column: a row keeps its draws under reordering (default: row positions)")
_HOUSEHOLD = _spec("column", "household id column: household-level columns are masked once per household and "
                   "given to every member", role="household")
_HOUSEHOLD_COLUMNS = _spec("columns", "the household-level columns, declared: masked once per household (an error "
                           "naming a household where one varies); the other masked columns person-level even if "
                           "constant within households (default: detected)")
_SUPPRESSED_AS = _spec("str", "a generalised release's label of suppressed records (e.g. *): a record whose keys are "
                        "all that label is read as every key missing and keeps its label")
#: the label's reading by a step that draws or merges categories: never a source nor a target
_SUPPRESSED_AS_VALUES = _spec("str", "a generalised release's label of suppressed values (e.g. *): never a source "
                              "nor a target of the step, kept where it is")
#: the household id and the declaration of the household-level columns
_HOUSEHOLDS = {"household": _HOUSEHOLD, "household_columns": _HOUSEHOLD_COLUMNS}
#: the strata, seed and key of the randomised masking methods, and the household id
_DRAWS = {"by": _BY, "seed": _SEED, "key": _KEY, **_HOUSEHOLDS}


def _masking() -> dict[str, Operation]:
    from .masking.intervals import _METHODS as INTERVAL_METHODS
    from .masking.intervals import recode_intervals_frame
    from .masking.add_noise import METHODS as NOISE_METHODS
    from .masking.add_noise import add_noise_frame
    from .masking.pram import pram_frame
    from .masking.rank_swap import rank_swap_frame
    from .masking.record_swap import swap_records_frame
    from .masking.suppress import suppress_frame, suppress_risky_frame
    from .laplace import laplace_frame
    from .recode.frame import recode_frame
    from .recode.labels import DEFAULT_MAX_LABEL, DEFAULT_SEP
    from .recode.top_bottom import top_bottom_expr, top_bottom_frame_exprs

    ops = [
        _declare("suppress", suppress_frame, "local suppression of key values to k-anonymity (sdcMicro localSuppression)", {
            "k": _spec("int", "every key combination is shared by at least k records", low=1),
            "on": _spec("columns", "key (quasi-identifier) columns", role="keys"),
            "importance": _spec("json", "sdcMicro's priority: one integer per key or {column: rank}, a key of rank 1 "
                                "is suppressed only when nothing else reaches k"),
            "by": _BY,
            "alpha": _spec("float", "weight of a match through a suppressed (null) value", low=0, high=1),
            "combs": _spec("ints", "k-anonymity for every subset of keys of these sizes (default: all keys)"),
            "tiebreak": _spec("json", "fewest suppressions first; this ranking (one integer per key or {column: rank}) "
                              "only decides ties (default: keys with more categories first)"),
            **_HOUSEHOLDS,
            "suppressed_as": _spec("str", "a generalised release's label of suppressed records (e.g. *): a record "
                                   "whose keys are all that label is read as every key missing and keeps its label"),
        }, command="suppress"),
        _declare("suppress_risky", suppress_risky_frame, "suppress key values of records above an individual-risk threshold (sdcMicro localSupp)", {
            "on": _spec("columns", "key (quasi-identifier) columns", role="keys"),
            "threshold": _spec("float", "individual-risk threshold (sdcMicro localSupp's threshold)", low=0, high=1),
            "weight": _spec("column", "sampling-weight column", role="weight"),
            "key_var": _spec("column", "suppress only this key (default: the risky record's key with most categories)"),
            "alpha": _spec("float", "weight of a match through a suppressed (null) value", low=0, high=1),
            **_HOUSEHOLDS,
            "suppressed_as": _SUPPRESSED_AS,
        }, command="suppress-risky"),
        _declare("pram", pram_frame, "post-randomisation of categorical columns (sdcMicro pram)", {
            "on": _spec("columns", "categorical columns to PRAM", role="pram"),
            "pd": _spec("number_or_map", "lower bound of the probability to keep a category (or COL=PD pairs)", low=0, high=1),
            "alpha": _spec("float", "weight of the invariant matrix", low=0, high=1),
            **_DRAWS,
            "matrix": _spec("json", "a user transition matrix (JSON: rows of numbers, or {column: matrix})"),
            "suppressed_as": _SUPPRESSED_AS_VALUES,
        }, random=True, command="pram"),
        _declare("rank_swap", rank_swap_frame, "rank swapping of numeric columns (Moore 1996; sdcMicro rankSwap)", {
            "on": _spec("columns", "numeric columns to swap (default: every numeric column)", role="numeric"),
            "p": _spec("float", "swap window: a fraction of the rows (default 0.05)", low=0, high=1),
            "r0": _spec("float", "the window from the correlation to keep (sdcMicro R0)", low=0, high=1),
            "k0": _spec("float", "the window from subset-mean preservation (sdcMicro K0)", low=0, high=1),
            "top": _spec("float", "share of the largest values replaced by their mean, not swapped", low=0, high=1),
            "bottom": _spec("float", "share of the smallest values replaced by their mean, not swapped", low=0, high=1),
            "preset": _spec("choice", "sdcmicro: sdcMicro's defaults (R0 = 0.95, 5 % top/bottom coding) and window",
                            choices=("sdcmicro",)),
            **_DRAWS,
        }, random=True, command="rank-swap", numeric="on"),
        _declare("add_noise", add_noise_frame, "noise on numeric columns (sdcMicro addNoise)", {
            "on": _spec("columns", "numeric columns (default: every numeric column)", role="numeric"),
            "method": _spec("choice", "kind of noise", choices=tuple(NOISE_METHODS)),
            "noise": _spec("float", "noise level in percent of the standard deviation", low=0),
            "delta": _spec("float", "the d of method correlated2", low=0, high=1),
            **_DRAWS,
        }, random=True, command="add-noise", numeric="on"),
        _declare("laplace", laplace_frame, "Laplace noise on numeric columns (Hasegawa et al.)", {
            "phi": _spec("number_or_map", "Laplace scale: one number, or COL=PHI pairs (or give k)", low=0),
            "on": _spec("columns", "numeric columns (default: every numeric column)", role="numeric"),
            "k": _spec("int", "Pk-anonymity k: phi from each column's range", low=2),
            "seed": _SEED,
            "clamp": _spec("bool", "clip noisy values to each column's observed range"),
            "m": _spec("int", "attributes released together (with k)", low=1),
            "key": _KEY,
            **_HOUSEHOLDS,
        }, random=True, command="laplace", numeric="on"),
        _declare("recode", recode_frame, "minimum-frequency global recoding of categories (Sano & Hattori, Fig. 1)", {
            "on": _spec("columns", "categorical columns to recode"),
            "p": _spec("float", "minimum share of a category", low=0, high=1),
            "hierarchy": _spec("json", "{column: {category: parent}}: merge only siblings (JSON)"),
            "ordinal": _spec("json", "columns (or {column: order}) whose neighbours only merge (JSON or a name)"),
            "sep": _spec("str", "separator of merged labels"),
            "other": _spec("str", "one label for every merged group"),
            "max_label": _spec("int", "cap merged labels at this many characters", low=24),
            "null_values": _spec("json", "categories read as missing (and CSV tokens read as missing)"),
            **_HOUSEHOLDS,
            "suppressed_as": _SUPPRESSED_AS_VALUES,
        }, skip=("enum_as", "labels"), extra_defaults={"sep": DEFAULT_SEP, "other": None, "max_label": DEFAULT_MAX_LABEL,
                                              "null_values": None, "household": None, "household_columns": None,
                                              "suppressed_as": None},
            command="recode", aliases={"on": ("--column",)}),
        _declare("recode_intervals", recode_intervals_frame, "interval recoding of numeric columns (sdcMicro globalRecode)", {
            "on": _spec("columns", "numeric columns to recode into intervals"),
            "breaks": _spec("floats_or_map", "cut points (comma-separated), or {column: [..]} (JSON)"),
            "n": _spec("int", "number of intervals (instead of breaks)", low=1),
            "method": _spec("choice", "with n: equal widths or equal counts", choices=tuple(INTERVAL_METHODS)),
            "right_closed": _spec("bool", "intervals (a, b] (else [a, b))"),
            **_HOUSEHOLDS,
        }, extra_defaults={"household": None, "household_columns": None}, command="recode-intervals", numeric="on"),
        _declare("top_bottom_code", top_bottom_frame_exprs, "top and bottom coding of numeric columns (sdcMicro topBotCoding)", {
            "on": _spec("columns", "numeric columns to code"),
            "lower": _spec("float", "values below become this threshold"),
            "upper": _spec("float", "values above become this threshold"),
            "lower_p": _spec("float", "or: the bottom share of values", low=0, high=1),
            "upper_p": _spec("float", "or: the top share of values", low=0, high=1),
            "replacement": _spec("choice", "replace by the threshold or by the mean of the coded values",
                                 choices=("threshold", "mean")),
            **_HOUSEHOLDS,
        }, extra=[(top_bottom_expr, 1)], extra_defaults={"household": None, "household_columns": None},
            command="top-bottom-code",
            numeric="on"),
        _declare("swap_records", swap_records_frame, "targeted record swapping of whole households between areas "
                 "(sdcMicro recordSwap)", {
            "household": _spec("column", "household id column: households are swapped whole", role="household"),
            "hierarchy": _spec("columns", "geographic hierarchy, coarsest first (e.g. region, district)"),
            "similar": _spec("json", "donor profiles tried in order: a list of column lists (JSON)"),
            "swaprate": _spec("float", "share of households to swap", low=0, high=1),
            "k_anonymity": _spec("int", "households of a record with fewer than k matches at a level are swapped "
                                 "across that level (0: none)", low=0),
            "risk_variables": _spec("columns", "columns of the risk counts (with the hierarchy)", role="keys"),
            "risk": _spec("columns", "precomputed risk columns, one per hierarchy level (instead of counts)"),
            "risk_threshold": _spec("float", "risk above which a household is swapped (default 1 / k_anonymity)",
                                    low=0),
            "carry_along": _spec("columns", "columns moved with the household (e.g. finer geography)"),
            "swapped_column": _spec("str", "also write the partner household's id in this column"),
            "seed": _SEED,
            "key": _KEY,
            "suppressed_as": _spec("str", "a generalised release's label of suppressed values (e.g. *): a moved "
                                   "column holding it is refused"),
        }, random=True, command="swap-records"),
    ]
    return {op.name: op for op in ops}


def _microaggregation() -> dict[str, Operation]:
    from .microagg.pipeline import METHODS, REFINERS, MicroaggSpec
    from .aggregate import INTEGER_MODES

    specs = {
        "k": _spec("int", "minimum group size", low=1),
        "on": _spec("columns", "quasi-identifier columns to microaggregate (default: every numeric column)",
                    role="numeric"),
        "method": _spec("choice", "partition method", choices=tuple(METHODS)),
        "by": _BY,
        "standardize": _spec("bool", "partition z-scores (else the raw values)"),
        "ordinal": _spec("columns", "--on columns compared by rank"),
        "weights": _spec("map", "per-column weights of the product distance (COL=W pairs)"),
        "group_column": _spec("str", "also write the group ids in this column"),
        "refine": _spec("choice", "post-optimise the groups (mil, or anneal: slower, lower loss)",
                        choices=tuple(REFINERS)),
        "refine_options": _spec("json", "options of the refiner (JSON object)"),
        "merge_small_strata": _spec("bool", "pool strata with fewer than k rows instead of an error"),
        "pooled_label": _spec("str", "label of pooled strata (default: their values joined by +)"),
        "integers": _spec("choice",
                          "integer / Decimal / Boolean columns: rounded means in their dtype, or Float64 means",
                          choices=tuple(INTEGER_MODES)),
        "progress": _spec("bool", "a progress bar on stderr"),
        "household": _spec("column", "household id column: every group spans >= k households (household-level "
                           "columns are microaggregated once per household)", role="household"),
        "household_columns": _HOUSEHOLD_COLUMNS,
        "merge_small_patterns": _spec("bool", "pool null patterns with fewer than k rows instead of an error"),
    }
    method_options: dict[str, Any] = {}
    for meth in METHODS.values():  # each method's options: declared with the method (microagg.Method)
        sig = inspect.signature(meth.partition).parameters
        for o in meth.options():
            method_options.setdefault(o, sig[o].default)
            if o not in specs:
                if o not in meth.option_specs:
                    raise TypeError(f"microaggregation method {meth.name!r}: option {o!r} is not declared in its "
                                    "option_specs (kind, help)")
                specs[o] = _spec(**meth.option_specs[o])
    out = {"microaggregate": _declare(
        "microaggregate", MicroaggSpec.build, "k-anonymity by microaggregation (MDAV, V-MDAV, MHM, univariate)",
        specs, extra_defaults=method_options, command="microaggregate", numeric="on")}
    for name, meth in METHODS.items():  # df.sdc.mdav / vmdav / mhm / univariate: the method fixed
        own = set(meth.options())
        options = tuple(o for o in out["microaggregate"].options
                        if o.name != "method" and (o.name not in method_options or o.name in own))
        out[name] = Operation(name, MicroaggSpec.build, f"{name} microaggregation", options, step=False)
    return out


def _measures() -> dict[str, Operation]:
    from .loss.classic import loss_report
    from .risk.measure import measure_risk

    risk = _declare("risk", measure_risk, "every disclosure-risk measure of a release (sdcMicro, ARX)", {
        "on": _spec("columns", "key (quasi-identifier) columns", role="keys"),
        "weight": _spec("column", "sampling-weight column", role="weight"),
        "alpha": _spec("float", "weight of a match through a missing value", low=0, high=1),
        "household": _spec("column", "household id column: household risk too", role="household"),
        "suda": _spec("bool", "SUDA2 scores"),
        "max_size": _spec("int", "largest minimal sample unique SUDA2 looks for", low=1),
        "dis_fraction": _spec("float", "sampling fraction of DIS-SUDA", low=0, high=1),
        "threshold": _spec("float", "ARX's acceptable record risk", low=0, high=1),
        "population_size": _spec("float", "population size (default: the sum of the weights)", low=0),
        "ks": _spec("ints", "the k of the records-violating-k counts"),
        "alpha_rule": _spec("choice", "safe: a risk at alpha < 1 never below its alpha = 1 value; sdcmicro: "
                            "sdcMicro's numbers", choices=("safe", "sdcmicro")),
        "suppressed_as": _spec("str", "a generalised release's label of suppressed records (e.g. *): a record "
                               "whose every key is it reads as every key missing (default: values as written)"),
    }, step=False)
    loss = _declare("loss_report", loss_report, "information loss of a release (ILD, SSE/SST, classic measures)", {
        "masked": _spec("json", "the row-aligned release"),
        "groups": _spec("column", "a partition column (instead of masked)"),
        "on": _spec("columns", "columns to compare", role="numeric"),
        "dist": _spec("json", "distance per column"),
        "weights": _spec("json", "weights of the product distance"),
        "exponent": _spec("float", "exponent of the information amount", low=0),
        "label": _spec("column", "class label column (Classification Metric)"),
        "k": _spec("int", "k of the Discernibility Metric", low=1),
        "hierarchies": _spec("json", "hierarchies of NCP"),
        "max_dim": _spec("int", "largest table of EBIL/CTBIL", low=1),
        "progress": _spec("bool", "a progress bar on stderr"),
        "ild_report": _spec("json", "a precomputed ILD report"),
    }, step=False)
    return {"risk": risk, "loss_report": loss}


def _generalization() -> dict[str, Operation]:
    from .generalize.criteria import L_KINDS, T_DISTANCES
    from .generalize.metrics import METRICS
    from .generalize.release import generalize

    op = _declare("generalize", generalize, "ARX's optimal full-domain generalisation with hierarchies under k-anonymity, "
                  "l-diversity, t-closeness and a suppression limit", {
        "hierarchies": _spec("json", "{column: ARX hierarchy CSV path | {rule: intervals/masking/dates, ...}} (JSON), "
                             "or COLUMN=PATH pairs"),
        "k": _spec("int", "every released class holds at least k records", low=1),
        "suppression_limit": _spec("float", "largest share of records suppressed", low=0, high=1),
        "metric": _spec("choice", "ARX's information-loss metric minimised", choices=METRICS),
        "sensitive": _spec("column", "sensitive column of l-diversity / t-closeness", role="sensitive"),
        "l_diversity": _spec("float", "l of l-diversity on the sensitive column", low=1),
        "t_closeness": _spec("float", "t of t-closeness on the sensitive column", low=0, high=1),
        "on": _spec("columns", "quasi-identifiers (default: every hierarchy's column but the sensitive one)",
                    role="keys"),
        "l_kind": _spec("choice", "kind of l-diversity (ARX's criteria)", choices=L_KINDS),
        "c": _spec("float", "c of recursive (c, l)-diversity", low=0),
        "t_distance": _spec("choice", "ground distance of t-closeness (hierarchical: the sensitive column's hierarchy)",
                            choices=T_DISTANCES),
        "suppressed_as": _spec("str", "value of a suppressed record's quasi-identifiers (null: a JSON recipe's "
                               "null)", nullable=True),
        "household": _spec("column", "household id column: every released class holds at least k distinct "
                           "households", role="household"),
        "household_columns": _HOUSEHOLD_COLUMNS,
    }, command="generalize", method_name="generalize_release")
    return {"generalize": op}


def _all() -> dict[str, Operation]:
    return {**_masking(), **_microaggregation(), **_measures(), **_generalization()}


class _Table(dict):  # type: ignore[type-arg]
    """:data:`OPERATIONS`, built on first use (the method modules load only then)."""

    _methods: tuple[tuple[str, int], ...] = ()

    def _fill(self) -> None:
        from .microagg.pipeline import METHODS

        methods = tuple((name, id(m)) for name, m in METHODS.items())  # a method added: rebuilt
        if not dict.__len__(self) or methods != self._methods:
            dict.clear(self)
            self.update(_all())
            self._methods = methods

    def __getitem__(self, name: str) -> Operation:
        self._fill()
        try:
            return dict.__getitem__(self, name)
        except KeyError:
            import difflib

            close = difflib.get_close_matches(name, list(self), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise SDCError(f"unknown operation {name!r}{hint} (known: {', '.join(self)})") from None

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._fill()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._fill()
        return dict.__len__(self)

    def __contains__(self, name: object) -> bool:
        self._fill()
        return dict.__contains__(self, name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self._fill()
        return dict.get(self, name, default)

    def values(self):  # type: ignore[no-untyped-def]
        self._fill()
        return dict.values(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._fill()
        return dict.items(self)

    def keys(self):  # type: ignore[no-untyped-def]
        self._fill()
        return dict.keys(self)


#: every declared operation by name (``df.sdc`` method name)
OPERATIONS: Mapping[str, Operation] = _Table()


def steps() -> list[Operation]:
    """The operations a problem / recipe can apply as a step, in declaration order."""
    return [op for op in OPERATIONS.values() if op.step]
