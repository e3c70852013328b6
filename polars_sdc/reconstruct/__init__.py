"""Reconstructing the distribution of Laplace-perturbed data (Hasegawa et al.).

The released values are ``y = x + e`` with ``e ~ Laplace(0, phi)`` per column. Assuming
``x`` follows a Gaussian mixture, the noisy values follow the mixture convolved with the
Laplace density (eq. 6/8); its maximum-likelihood parameters (eq. 9) recover the
distribution of ``x`` -- density, cross tables, a synthetic sample, a clustering -- from the
noisy data alone. Laid out like scikit-learn's ``mixture`` module:

- :mod:`.density`: :func:`convolved_logpdf`, eq. 8 in log space (``log_ndtr`` / ``erfcx``).
- :mod:`.em`: the EM drivers -- exact EM (x given y and a component is a two-piece truncated
  normal whose moments give closed-form updates, so the likelihood never decreases),
  the paper's generalised EM (Algorithm 1, learning rate ``alpha``), SQUAREM acceleration,
  Algorithm 2 (``model="rotated"``: per-component PCA rotation).
- :mod:`.gmm`: :func:`fit_gmm`, the entry point (several starts, ``K`` a range picked by
  BIC or by the likelihood as in the paper, histogram options for large N, the diagonal
  multi-D model of eq. 19, a variance floor ``phi (N/K)^(-1/4)`` so that a tight ``tol``
  cannot collapse a component onto a point) and its result :class:`GMMFit`.
- :mod:`.ibt`: :func:`fit_ibt`, the Iterative Bayesian Technique baseline (capped at 1000
  iterations by default; ``max_iter=None`` runs it to convergence), and :class:`IBTFit`.
- :mod:`.accuracy`: :func:`l1_accuracy`, the paper's score (100 for equal histograms, 0 for
  disjoint ones).
- :mod:`.frame`: the DataFrame faces used by ``df.sdc.reconstruct_gmm`` / ``reconstruct_ibt``.
"""
from __future__ import annotations

from .accuracy import l1_accuracy
from .density import convolved_logpdf
from .frame import reconstruct_gmm_frame, reconstruct_ibt_frame
from .gmm import GMMFit, fit_gmm
from .ibt import IBTFit, fit_ibt

__all__ = [
    "GMMFit",
    "IBTFit",
    "convolved_logpdf",
    "fit_gmm",
    "fit_ibt",
    "l1_accuracy",
    "reconstruct_gmm_frame",
    "reconstruct_ibt_frame",
]
