"""Generalisation hierarchies and ARX's optimal full-domain generalisation search.

- :class:`Hierarchy`: read ARX's CSV, build from rules (intervals, masking, dates, mapping).
- :func:`generalize`: the optimal transformation under k-anonymity, distinct l-diversity and
  t-closeness with a suppression limit, by ARX's metrics (``df.sdc.generalize``).
"""
from __future__ import annotations

from .hierarchy import Hierarchy
from .release import GeneralizationResult, SuppressionLabelWarning, generalize

__all__ = ["Hierarchy", "GeneralizationResult", "SuppressionLabelWarning", "generalize"]
