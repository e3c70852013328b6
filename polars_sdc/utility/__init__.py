"""Model-based utility of a recoded release (Sano & Hattori): multinomial logistic regression
(:mod:`.logit`), macro precision / recall / F and accuracy (:mod:`.metrics`), the information
loss of eq. (6) (:mod:`.recode_utility`), Cramér's V of eq. (7) (:mod:`.association`).
"""
from __future__ import annotations

from .association import cramers_v, cramers_v_pair
from .logit import LogitFit, _check_counts, _start, fit_multinomial, fit_multinomial_onehot, logit_objective
from .metrics import METRICS, classification_metrics, confusion_matrix
from .recode_utility import UtilityReport, _codes, _patterns, model_metrics, recode_utility

__all__ = [
    "LogitFit",
    "METRICS",
    "UtilityReport",
    "classification_metrics",
    "confusion_matrix",
    "cramers_v",
    "cramers_v_pair",
    "fit_multinomial",
    "fit_multinomial_onehot",
    "logit_objective",
    "model_metrics",
    "recode_utility",
]
