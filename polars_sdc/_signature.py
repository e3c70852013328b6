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
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

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
    known = frozenset(named)

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
