"""One keyword list per operation: a function that only passes its arguments on to another
shows that other's parameters instead of repeating them.

``same_parameters(target)``: a module-level function taking exactly ``target``'s parameters
(``ild`` beside ``ild_report``). ``delegates_to(target)``: a ``df.sdc`` / ``pl.col().sdc``
namespace method taking ``target``'s parameters after its first one (the frame or
expression, which the namespace supplies). Either way type checkers and IDEs see the
parameters through the ``ParamSpec``, ``help()`` and ``inspect.signature`` through
``__signature__``; the decorated function keeps its own docstring and return type, and
``target`` owns the defaults and the checks.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


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


def delegates_to(
    target: Callable[Concatenate[Any, P], Any],
) -> Callable[[Callable[..., R]], Callable[Concatenate[Any, P], R]]:
    """A namespace method taking ``target``'s parameters after its first one (the frame or
    expression); a wrong argument is a ``TypeError`` at the call, as Python would raise it,
    also where the method only plans a lazy step.

    >>> def scale(df, factor=2.0, *, clip=False): return factor
    >>> class Ns:
    ...     @delegates_to(scale)
    ...     def scale(self, factor=2.0, **options):
    ...         "Doc of the method."
    ...         return scale(None, factor, **options)
    >>> str(inspect.signature(Ns().scale)), Ns.scale.__doc__, Ns().scale(3.0, clip=True)
    ('(factor=2.0, *, clip=False)', 'Doc of the method.', 3.0)
    >>> Ns().scale(clipp=True)
    Traceback (most recent call last):
    TypeError: got an unexpected keyword argument 'clipp'
    """
    params = list(inspect.signature(target).parameters.values())
    if not params:
        raise TypeError(f"{target.__qualname__} has no first (frame) parameter to supply")

    def decorate(method: Callable[..., R]) -> Callable[Concatenate[Any, P], R]:
        own = inspect.signature(method)
        self_param = next(iter(own.parameters.values()))
        signature = own.replace(parameters=[self_param, *params[1:]])

        @functools.wraps(method)
        def run(*args: Any, **kwargs: Any) -> R:
            signature.bind(*args, **kwargs)
            return method(*args, **kwargs)

        run.__signature__ = signature  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


def unknown_keyword(owner: str, name: str, valid: list[str]) -> str:
    """The message for an unknown keyword: the method, the closest valid name, the valid names.

    >>> unknown_keyword("risk", "weights", ["on", "weight", "alpha"])
    "risk() got an unexpected keyword argument 'weights'; did you mean 'weight'? (it takes: on, weight, alpha)"
    """
    import difflib

    close = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{owner}() got an unexpected keyword argument {name!r}{hint} (it takes: {', '.join(valid)})"


def check_keywords(cls: type, *, declared: bool = True) -> type:
    """Guard every public method of the namespace class ``cls``: an unknown keyword raises
    :class:`~polars_sdc.SDCError` (also a ``TypeError``) naming the method and the closest
    valid name. A method taking ``**options`` is judged by its declaration in
    :mod:`polars_sdc.operations` (read only when such a keyword is seen), else left to the
    method (``declared=False``, the expression namespace: by the ``Unpack[TypedDict]`` of its
    ``**options``). Signatures (``inspect.signature``, ``help()``) are unchanged.

    >>> import polars as pl, polars_sdc
    >>> pl.DataFrame({"a": [1, 1]}).sdc.risk("a", weights="w")
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: risk() got an unexpected keyword argument 'weights'; did you mean 'weight'? (it takes: on, weight, alpha, household, suda, max_size, dis_fraction, threshold, population_size, ks, alpha_rule)
    """
    for name in dir(cls):
        if name.startswith("_") or not inspect.isfunction(inspect.getattr_static(cls, name)):
            continue
        setattr(cls, name, _guarded(name, getattr(cls, name), declared))
    return cls


def _typed_options(param: inspect.Parameter) -> list[str] | None:
    """The keys of the ``Unpack[TypedDict]`` of ``**options`` (a TypedDict of ``_typing``)."""
    import re

    from . import _typing

    m = re.fullmatch(r"Unpack\[(\w+)\]", str(param.annotation).strip("'\""))
    typed = getattr(_typing, m.group(1), None) if m else None
    return list(typed.__annotations__) if typed is not None else None


def _guarded(name: str, method: Callable[..., R], declared: bool = True) -> Callable[..., R]:
    params = list(inspect.signature(method).parameters.values())[1:]
    named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    known = frozenset(named)
    takes_more = any(p.kind == p.VAR_KEYWORD for p in params)

    def refuse(key: str) -> None:
        from ._errors import SDCError

        valid = named
        if takes_more:
            if declared:
                from .operations import accepted_keywords

                more = accepted_keywords(name)
            else:
                typed = next((_typed_options(p) for p in params if p.kind == p.VAR_KEYWORD), None)
                more = None if typed is None else named + typed
            if more is None or key in more:
                return
            valid = more
        raise SDCError(unknown_keyword(name, key, valid))

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> R:
        for key in kwargs:
            if key not in known:
                refuse(key)
        return method(self, *args, **kwargs)

    return run
