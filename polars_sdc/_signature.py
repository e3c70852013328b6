"""Signatures and keywords.

``same_parameters(target)``: a module-level function taking exactly ``target``'s parameters
(``ild`` beside ``ild_report``); type checkers and IDEs see them through the ``ParamSpec``,
``help()`` and ``inspect.signature`` through ``__signature__``.

``check_keywords(obj)``: the ``df.sdc`` / ``lf.sdc`` / ``pl.col().sdc`` namespace classes
(whose methods have explicit signatures, checked against :mod:`polars_sdc.operations` by
tests/test_typing.py), the public top-level functions (``polars_sdc.sse``,
``polars_sdc.refine_anneal``, ...) and the Spark functions refuse an unknown keyword with an
:class:`~polars_sdc.SDCError` naming the method and the closest valid name
(:func:`unknown_keyword`); tests/test_keywords.py checks every public function.

``deprecated(renamed={"columns": "on"}, positional=("alpha", ...))``: a parameter's old name,
or an option once given by position, still works and warns (:class:`SDCDeprecationWarning`, a
``DeprecationWarning``) naming the name to use; the guard of ``check_keywords`` accepts the old
names. One name per concept across the namespace (docs/naming.md); tests/test_naming.py.
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import polars as pl

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T", bound=Callable[..., Any])


def same_parameters(target: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """The decorated function takes ``target``'s parameters (it passes them on unchanged).

    >>> def report(df, *, exponent=2, progress=False): return {"value": exponent}
    >>> @same_parameters(report)
    ... def value(df, **options): return report(df, **options)["value"]
    >>> str(inspect.signature(value)), value(None, exponent=1)
    ('(df, *, exponent=2, progress=False)', 1)
    """
    def decorate(fn: Callable[..., R]) -> Callable[P, R]:
        own = inspect.signature(fn)
        fn.__signature__ = inspect.signature(target).replace(  # type: ignore[attr-defined]
            return_annotation=own.return_annotation
        )
        return fn  # type: ignore[return-value]

    return decorate


def unknown_keyword(owner: str, name: str, valid: list[str]) -> str:
    """The message for an unknown keyword: the method, the closest valid name, the valid names.

    >>> unknown_keyword("risk", "weights", ["on", "weight", "alpha"])
    "risk() got an unexpected keyword argument 'weights'; did you mean 'weight'? (it takes: on, weight, alpha)"
    >>> unknown_keyword("census", "seed", [])
    "census() got an unexpected keyword argument 'seed' (it takes no keyword arguments)"
    """
    import difflib

    close = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    takes = f"it takes: {', '.join(valid)}" if valid else "it takes no keyword arguments"
    return f"{owner}() got an unexpected keyword argument {name!r}{hint} ({takes})"


def check_keywords(obj: T) -> T:
    """Guard a function, or every public method of the namespace class ``obj``: an unknown
    keyword raises :class:`~polars_sdc.SDCError` (also a ``TypeError``) naming the function or
    method and the closest valid name, where Python's own ``TypeError`` would name neither the
    namespace nor a suggestion. A callable taking ``**options`` (``microaggregate`` and
    ``partition``: the options of partition methods added outside the package) checks those
    itself. Signatures (``inspect.signature``, ``help()``, type checkers) are unchanged.

    >>> import polars as pl, polars_sdc
    >>> pl.DataFrame({"a": [1, 1]}).sdc.risk("a", weights="w")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: risk() got an unexpected keyword argument 'weights'; did you mean 'weight'? (it takes: on, weight, alpha, household, suda, max_size, dis_fraction, threshold, population_size, ks, alpha_rule, suppressed_as)
    >>> @check_keywords
    ... def spread(x, *, ddof=0): return x
    >>> str(inspect.signature(spread)), spread(1, ddof=1)
    ('(x, *, ddof=0)', 1)
    >>> spread(1, dof=1)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: spread() got an unexpected keyword argument 'dof'; did you mean 'ddof'? (it takes: x, ddof)
    """
    if not isinstance(obj, type):
        return _guarded(obj.__name__, obj, skip=0)  # type: ignore[return-value]
    for name in dir(obj):
        if name.startswith("_") or not inspect.isfunction(inspect.getattr_static(obj, name)):
            continue
        setattr(obj, name, _guarded(name, getattr(obj, name), skip=1))
    return obj


def _guarded(name: str, fn: Callable[..., R], skip: int) -> Callable[..., R]:
    """``fn`` refusing a keyword none of its parameters after the first ``skip`` (``self``) takes."""
    params = list(inspect.signature(fn).parameters.values())[skip:]
    named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    var = [p for p in params if p.kind == p.VAR_KEYWORD]
    if var:
        typed = _unpacked_keys(fn, var[0].name)
        if typed is None:  # the function checks the keywords it passes on
            return fn
        named += [k for k in typed if k not in named]   # **options: Unpack[TypedDict] names them all
    known = frozenset(named) | frozenset(getattr(fn, "__sdc_renamed__", {}))  # old names: they warn

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> R:
        for key in kwargs:
            if key not in known:
                from ._errors import SDCError

                raise SDCError(unknown_keyword(name, key, named))
        return fn(*args, **kwargs)

    return run


def _unpacked_keys(fn: Callable[..., Any], name: str) -> list[str] | None:
    """The keys of the ``TypedDict`` of ``**name: Unpack[TypedDict]`` (the Spark ``recode``'s
    label options), in declaration order; None for any other ``**options`` (or an annotation
    that cannot be resolved)."""
    import typing

    try:
        hint = typing.get_type_hints(fn, include_extras=True).get(name)
    except Exception:  # noqa: BLE001 - an unresolvable annotation: leave the function unguarded
        return None
    if typing.get_origin(hint) is not typing.Unpack:
        return None
    return list(typing.get_type_hints(typing.get_args(hint)[0]))


class SDCDeprecationWarning(DeprecationWarning):
    """A polars_sdc name or call form that still works but is deprecated; the message names
    the one to use. ``warnings.simplefilter("error", SDCDeprecationWarning)`` finds every
    old name in a script.

    >>> import warnings, polars as pl, polars_sdc
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     out = pl.DataFrame({"x": [1, 9]}).sdc.top_bottom_code(columns="x", upper=5)
    >>> out["x"].to_list(), w[0].category is polars_sdc.SDCDeprecationWarning, str(w[0].message)
    ([1, 5], True, 'top_bottom_code(): columns= is deprecated; use on= (the same option)')
    >>> issubclass(polars_sdc.SDCDeprecationWarning, DeprecationWarning)   # hidden outside __main__ by default
    True
    """


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: Polars' own frames (a LazyFrame's ``collect`` running a whole-frame step): skipped too, so a
#: warning of a lazy step points at the ``collect()`` line
_POLARS = os.path.dirname(os.path.abspath(pl.__file__)) + os.sep


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """Warn ``message`` as ``category`` attributed to the user's line (:func:`caller_stacklevel`),
    so Python's default filters and ``warnings.catch_warnings`` name the script or notebook
    line that called polars_sdc, not a line of the package.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_at_caller("the label is null", UserWarning)
    >>> str(w[0].message), w[0].category.__name__, w[0].filename.endswith("_signature.py")
    ('the label is null', 'UserWarning', False)
    """
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith((_PACKAGE, _POLARS)):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def warn_deprecated(message: str) -> None:
    """Warn ``message`` as an :class:`SDCDeprecationWarning` attributed to the caller's line:
    the first frame outside polars_sdc (so Python's default filter shows it in a script or a
    notebook, whatever the depth of the call inside the package; :func:`warn_at_caller`).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_deprecated("f(): x= is deprecated; use y=")
    >>> str(w[0].message), w[0].filename.endswith("_signature.py")
    ('f(): x= is deprecated; use y=', False)
    """
    warn_at_caller(message, SDCDeprecationWarning)


def renamed_options(owner: str, renamed: Mapping[str, str], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with each old name of ``renamed`` (old -> new) replaced by the new one,
    warning once per old name; both names given is an :class:`~polars_sdc.SDCError`.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     renamed_options("recode", {"columns": "on"}, {"columns": "a", "p": 0.1})
    {'on': 'a', 'p': 0.1}
    >>> renamed_options("recode", {"columns": "on"}, {"columns": "a", "on": "b"})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: recode(): give on= only (columns= is its deprecated name)
    """
    if not renamed or not any(k in options for k in renamed):
        return dict(options)
    out: dict[str, Any] = {}
    for key, value in options.items():
        new = renamed.get(key)
        if new is None:
            out.setdefault(key, value)
            continue
        if new in options:
            from ._errors import SDCError

            raise SDCError(f"{owner}(): give {new}= only ({key}= is its deprecated name)")
        warn_deprecated(f"{owner}(): {key}= is deprecated; use {new}= (the same option)")
        out[new] = value
    return out


#: the renames of every deprecated callable: (module, qualified name) -> {old: new}; read by the
#: operations (:attr:`polars_sdc.operations.Operation.renamed`) without importing the namespace
RENAMED: dict[tuple[str, str], dict[str, str]] = {}


def renamed_in_namespace(method: str) -> dict[str, str]:
    """The renamed options (old -> new) of the ``df.sdc`` method ``method``.

    >>> import polars_sdc
    >>> renamed_in_namespace("suppress_risky"), renamed_in_namespace("suppress")
    ({'risk_above': 'threshold'}, {})
    """
    for (module, qualname), names in RENAMED.items():
        if module.startswith("polars_sdc.namespace") and qualname.endswith("Methods." + method):
            return dict(names)
    return {}


def deprecated(*, renamed: Mapping[str, str] | None = None, positional: Sequence[str] = ()) -> Callable[[T], T]:
    """A function (or namespace method) whose parameters were renamed (``renamed``: old name
    -> new name) or made keyword-only (``positional``: the names once given by position after
    the positional parameters, in their old order): the old call still runs, the same as the
    new one, and warns (:func:`warn_deprecated`) naming the new form. The signature shown is
    the new one; :func:`check_keywords` accepts the old names.

    >>> @deprecated(renamed={"group": "groups"}, positional=("ddof",))
    ... def spread(x, *, groups="g", ddof=0): return (x, groups, ddof)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     spread(1, 2, group="h")
    (1, 'h', 2)
    >>> [str(m.message) for m in w]
    ['spread(): ddof given by position is deprecated; give ddof=', 'spread(): group= is deprecated; use groups= (the same option)']
    >>> str(inspect.signature(spread))
    "(x, *, groups='g', ddof=0)"
    """
    old_names = dict(renamed or {})
    moved = tuple(positional)

    def decorate(fn: T) -> T:
        params = inspect.signature(fn).parameters.values()
        n_positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        owner = fn.__name__

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            extra = args[n_positional:]
            if extra and len(extra) <= len(moved):
                names = moved[: len(extra)]
                for name in names:
                    if name in kwargs:
                        raise TypeError(f"{owner}() got multiple values for argument {name!r}")
                warn_deprecated(f"{owner}(): {', '.join(names)} given by position is deprecated; give "
                                f"{', '.join(n + '=' for n in names)}")
                args, kwargs = args[:n_positional], {**dict(zip(names, extra)), **kwargs}
            return fn(*args, **renamed_options(owner, old_names, kwargs))

        if old_names:
            RENAMED[(fn.__module__, fn.__qualname__)] = old_names
        run.__sdc_renamed__ = old_names  # type: ignore[attr-defined]
        run.__sdc_positional__ = moved  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate
