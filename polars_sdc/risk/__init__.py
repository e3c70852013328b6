"""Disclosure risk: how safe a release is (frequencies, individual and global risk, SUDA2,
l-diversity, t-closeness, record linkage, interval disclosure, ARX's risk models, report).

Submodules are imported on use (``from polars_sdc.risk.frequencies import frequencies_frame``)
so that importing polars_sdc stays fast.
"""
