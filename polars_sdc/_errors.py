"""The one exception type of polars_sdc."""


class SDCError(ValueError, TypeError):
    """Bad input to a polars_sdc method; the message names the column and the problem. It is
    both a ``ValueError`` and a ``TypeError``, so callers catching either see it.

    >>> import polars as pl, polars_sdc
    >>> try:
    ...     pl.DataFrame({"a": [1.0, float("nan")]}).sdc.mdav(k=1, on="a")
    ... except polars_sdc.SDCError as e:
    ...     print(e)
    column 'a': 1 NaN value(s); a finite number is needed in every row
    """
