"""Names of recoded categories: the separator, the ``other=`` label, the ``max_label=`` cap,
and the ``null_values=`` read as missing.

A merged category is named by joining its parts, in position order, with ``sep``. The
default ``"|"`` is ASCII (safe in any terminal, CSV or downstream schema), a single character
(labels stay as short as with the paper's "・"), holds no whitespace (so it survives CSV
trimming and cannot be confused with space-padded values such as UCI's " Cuba"), is rare
inside category values (unlike "/", "-", "+" or ","), and reads as "or": ``Cuba|Jamaica``
is one of the two. The paper's own labels come back with ``sep="・"`` ("農業・林業").

A joined label longer than ``max_label`` characters (default 200; ``None``: no cap) keeps its
first parts and ends ``...(+N more)`` with N the number of parts left out; if not even the
first part fits, that part is cut. Every label written is then at most ``max_label``
characters (for fewer than 10**10 parts, which UInt32 codes guarantee).

``other="Other"`` names every merged group ``"Other"`` instead: the groups Fig. 1 forms are
pooled into that one category (each group already exceeds the threshold, so does the pool).

>>> spec = LabelSpec.build(max_label=24)
>>> spec.join(["Cambodia", "Canada", "China"]), spec.join([f"country-{i}" for i in range(40)])
('Cambodia|Canada|China', 'country-0|...(+39 more)')
>>> LabelSpec.build(sep="・").join(["農業", "林業"])
'農業・林業'
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import SDCError
from .._validation import check_int

DEFAULT_SEP = "|"
DEFAULT_MAX_LABEL = 200
MIN_MAX_LABEL = 24  # room for "...(+4294967295 more)" (21 characters) and some text
ELLIPSIS = "..."


@dataclass(frozen=True)
class LabelSpec:
    """How merged categories are named: joined by ``sep`` and cut at ``max_label`` characters,
    or all named ``other``. Build it with :meth:`build` (every option checked once)."""

    sep: str = DEFAULT_SEP
    other: str | None = None
    max_label: int | None = DEFAULT_MAX_LABEL

    @classmethod
    def build(cls, sep: Any = DEFAULT_SEP, other: Any = None, max_label: Any = DEFAULT_MAX_LABEL) -> "LabelSpec":
        """Check the options and return the spec.

        >>> LabelSpec.build(sep="")
        Traceback (most recent call last):
        ...
        polars_sdc._errors.SDCError: sep (the separator of merged labels) must be a non-empty string, got ''
        >>> LabelSpec.build(max_label=5)
        Traceback (most recent call last):
        ...
        polars_sdc._errors.SDCError: max_label must be >= 24, got 5
        """
        if not isinstance(sep, str) or sep == "":
            raise SDCError(f"sep (the separator of merged labels) must be a non-empty string, got {sep!r}")
        if other is not None and (not isinstance(other, str) or other == ""):
            raise SDCError(f"other (the label of merged groups) must be a non-empty string or None, got {other!r}")
        if max_label is not None:
            max_label = check_int(max_label, "max_label", minimum=MIN_MAX_LABEL)
        return cls(sep, other, max_label)

    def join(self, texts: Sequence[str]) -> str:
        """The label of a merged group of the parts ``texts`` (position order): ``other`` if
        set, else the parts joined by ``sep``, cut to ``max_label`` characters.

        >>> LabelSpec.build(max_label=24).join(["x" * 30, "y"])
        'xxxxxxxxxxxx...(+1 more)'
        >>> LabelSpec.build(other="Other").join(["a", "b"])
        'Other'
        """
        if self.other is not None and len(texts) > 1:
            return self.other
        full = self.sep.join(texts)
        cap = self.max_label
        if cap is None or len(full) <= cap or len(texts) <= 1:  # one part: a category's own name
            return full
        size = -len(self.sep)  # length of sep.join(kept)
        kept = 0
        for t in texts[:-1]:
            grown = size + len(self.sep) + len(t)
            tail = len(self.sep) + len(ELLIPSIS) + len(f"(+{len(texts) - kept - 1} more)")
            if grown + tail > cap:
                break
            size = grown
            kept += 1
        if kept:
            return f"{self.sep.join(texts[:kept])}{self.sep}{ELLIPSIS}(+{len(texts) - kept} more)"
        tail = f"{ELLIPSIS}(+{len(texts) - 1} more)"  # not even the first part fits: cut it
        return texts[0][: max(cap - len(tail), 0)] + tail


def check_null_values(null_values: Any) -> frozenset[str]:
    """The category values to read as missing (null): None, one string or a list of strings.

    >>> sorted(check_null_values(["?", "n/a"])), check_null_values("?"), check_null_values(None)
    (['?', 'n/a'], frozenset({'?'}), frozenset())
    """
    if null_values is None:
        return frozenset()
    if isinstance(null_values, str):
        return frozenset([null_values])
    if not isinstance(null_values, (Sequence, set, frozenset)):
        raise SDCError(f"null_values must be a string or a list of strings, got {null_values!r}")
    bad = [v for v in null_values if not isinstance(v, str)]
    if bad:
        raise SDCError(f"null_values must be strings (category values read as missing), got {bad[0]!r}")
    return frozenset(null_values)


LABEL_OPTIONS = ("sep", "other", "max_label", "null_values")


def check_label_options(options: Mapping[str, Any]) -> tuple[LabelSpec, frozenset[str]]:
    """The label options of a recoding call (``sep``, ``other``, ``max_label``, ``null_values``;
    see :class:`polars_sdc._typing.LabelOptions`) checked once: (label spec, null values).

    >>> check_label_options({"sep": "/", "null_values": "?"})
    (LabelSpec(sep='/', other=None, max_label=200), frozenset({'?'}))
    >>> check_label_options({"seperator": "/"})
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: unknown recoding option 'seperator' (expected one of sep, other, max_label, null_values)
    """
    for name in options:
        if name not in LABEL_OPTIONS:
            raise SDCError(f"unknown recoding option {name!r} (expected one of {', '.join(LABEL_OPTIONS)})")
    spec = LabelSpec.build(
        options.get("sep", DEFAULT_SEP), options.get("other"), options.get("max_label", DEFAULT_MAX_LABEL)
    )
    return spec, check_null_values(options.get("null_values"))


__all__ = ["DEFAULT_MAX_LABEL", "DEFAULT_SEP", "LABEL_OPTIONS", "LabelSpec", "check_label_options", "check_null_values"]
