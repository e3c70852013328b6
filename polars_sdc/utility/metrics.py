"""Classification metrics from a confusion matrix (Sano & Hattori, section 4.4).

``G`` has rows = true class, columns = predicted class. As the paper's prose defines them (its
formulas swap the row and column totals): precision_a = G_aa / (column total, predicted a),
recall_a = G_aa / (row total, truly a), F_a = harmonic mean, accuracy = trace / total; macro
= plain mean over classes. A per-class value that is 0/0 (precision of a class never
predicted, recall of a class absent from the truth, F when either is) is *left out* of its
mean (``undefined="skip"``, the default: this reproduces the paper's negative precision/F
losses when recoding makes a dominant class predicted for everyone) or counted as 0
(``undefined="zero"``).
"""
from __future__ import annotations

import numpy as np

from .._errors import SDCError

METRICS = ("precision", "recall", "f", "accuracy")


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``G[a, b]`` = (weighted) number of rows of true class a predicted as b (Table 3).

    >>> confusion_matrix(np.array([0, 0, 1]), np.array([0, 1, 1]), 2).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    G = np.zeros((n_classes, n_classes))
    w = np.ones(len(y_true)) if weights is None else np.asarray(weights, dtype=np.float64)
    np.add.at(G, (np.asarray(y_true), np.asarray(y_pred)), w)
    return G


def classification_metrics(G: np.ndarray, *, undefined: str = "skip") -> dict[str, float]:
    """Macro precision, macro recall, macro F and accuracy of a confusion matrix (section 4.4,
    standard definitions); ``undefined`` says what a 0/0 per-class value does (module doc).

    >>> m = classification_metrics(np.array([[5.0, 0.0], [5.0, 0.0]]))   # class 1 never predicted
    >>> m["precision"], m["recall"], m["accuracy"]
    (0.5, 0.5, 0.5)
    >>> classification_metrics(np.array([[5.0, 0.0], [5.0, 0.0]]), undefined="zero")["precision"]
    0.25
    """
    if undefined not in ("skip", "zero"):
        raise SDCError(f"undefined must be 'skip' or 'zero', got {undefined!r}")
    G = np.asarray(G, dtype=np.float64)
    tp = np.diag(G)
    predicted = G.sum(axis=0)
    actual = G.sum(axis=1)
    total = G.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        prec = np.where(predicted > 0, tp / predicted, np.nan)
        rec = np.where(actual > 0, tp / actual, np.nan)
        denom = prec + rec
        f = np.where(denom > 0, 2 * prec * rec / denom, np.where(np.isnan(denom), np.nan, 0.0))
    occurring = (predicted > 0) | (actual > 0)

    def mean(v: np.ndarray) -> float:
        if undefined == "zero":
            v = np.where(np.isnan(v), 0.0, v)[occurring]
        else:
            v = v[~np.isnan(v)]
        return float(v.mean()) if v.size else float("nan")

    return {
        "precision": mean(prec),
        "recall": mean(rec),
        "f": mean(f),
        "accuracy": float(tp.sum() / total) if total > 0 else float("nan"),
    }
