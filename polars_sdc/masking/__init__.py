"""Masking methods beyond microaggregation and recoding (sdcMicro's toolkit): PRAM, rank
swapping, additive / correlated / moment-preserving noise, interval recoding, local
suppression and targeted record swapping of households (``record_swap``). One module per
method; each has a ``*_frame(df, ...)`` function and an ``*_output_schema(schema, ...)``
used by the ``df.sdc`` / ``lf.sdc`` namespace.
"""
