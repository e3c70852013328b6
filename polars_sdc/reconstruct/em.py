"""EM drivers of the Laplace-convolved Gaussian mixture (Hasegawa et al., eq. 9-13,
Algorithms 1 and 2).

The state of one start is a :class:`_State` (weights, means, standard deviations and the
sufficient statistics of the current parameters from one Numba pass, ``em_pass``).
``_propose`` is the M-step: the exact EM update (x given y and a component is a two-piece
truncated normal, whose moments give closed-form updates; the likelihood never decreases) or
the paper's GEM step (eq. 11, learning rate ``alpha``, halved when it would lower the
likelihood). ``_iterate`` runs plain EM, ``_iterate_squarem`` the SQUAREM-accelerated exact
EM (Varadhan & Roland 2008, scheme S3). ``_run_diagonal`` screens several starts and refines
the best (optionally after a histogram prefit); ``_run_rotated`` is Algorithm 2.
"""
from __future__ import annotations

import math

import numpy as np


class EMMeter:
    """Progress of a fit in EM passes (``fit_gmm(progress=True)``): done passes out of an
    estimate. Each K has a plan: its screening runs (``n_init`` x ``init_iter`` passes, known)
    and its final run(s) (first guessed as ``init_iter`` passes each). While a final run
    goes, its length is re-estimated from the geometric decay of the log-likelihood change,
    ``remaining = log(tol / dL_t) / log(dL_t / dL_{t-1})`` (EM converges linearly); a run or
    a K that ends early gives its unused passes back, so the bar ends at 100 %.
    """

    def __init__(self, pb, ks, *, n_init: int, init_iter: int, max_iter: int, tol: float, final_runs: int) -> None:
        self.pb, self.tol, self.max_iter = pb, tol, max_iter
        self.screen = min(init_iter, max_iter) if n_init > 1 else 0
        self.guess = min(init_iter, max_iter)
        self.plan = n_init * self.screen + final_runs * self.guess  # per K
        self.future = self.plan * len(ks)  # passes planned for the runs not started yet
        self.done = 0
        self.stage_left = 0
        self.cur = self.used = 0
        self.final = False
        self.last = None
        self._show()

    def _show(self) -> None:
        self.pb.set_total(self.done + (self.cur - self.used) + self.future)

    def stage(self, K: int) -> None:
        """A new number of components: its plan is taken from the future passes."""
        self.pb.set_postfix(f"K={K}")
        self.stage_left = self.plan

    def end_stage(self) -> None:
        self.future -= self.stage_left
        self.stage_left = 0
        self._show()

    def start_run(self, budget: int, screening: bool) -> None:
        share = self.screen if screening else self.guess
        share = min(share, self.stage_left)
        self.stage_left -= share
        self.future -= share
        # this run's planned passes: its share of the plan (a run beyond the plan: its budget)
        self.cur = max(min(budget, share) if share else budget, 1)
        self.used, self.events, self.final, self.last = 0, 0, not screening, None
        self._show()

    def tick(self, change: float | None = None) -> None:
        """One pass done; ``change``: |dL| of a step (SQUAREM: of its first pass only)."""
        self.done += 1
        self.used += 1
        if self.final and change is not None and math.isfinite(change):
            self.events += 1
            last, self.last = self.last, change
            if change < self.tol:
                self.cur = self.used
            elif last is not None and 0 < change < last:
                per = self.used / self.events  # passes per likelihood change (SQUAREM: ~3)
                rem = per * math.log(self.tol / change) / math.log(change / last)
                self.cur = self.used + int(min(max(math.ceil(rem), 1), self.max_iter))
        if self.cur <= self.used:
            self.cur = self.used + (1 if not self.final else max(1, self.used // 4))
        self._show()
        self.pb.advance(1)

    def end_run(self) -> None:
        self.cur = self.used = 0
        self._show()


def _n_chunks(n: int) -> int:
    return int(min(64, max(1, n // 4096)))


def _sd_floor(sd_y: np.ndarray, sd_min) -> np.ndarray:
    """The smallest standard deviation a component may take, per column: 1e-6 of the spread
    of y (numerical safety), or ``sd_min`` when larger (the variance floor of ``fit_gmm``)."""
    floor = np.maximum(1e-6 * np.where(sd_y > 0, sd_y, 1.0), 1e-300)
    return floor if sd_min is None else np.maximum(floor, sd_min)


def _init_start(Y: np.ndarray, w: np.ndarray, phi: np.ndarray, K: int, rng: np.random.Generator, first: bool):
    """(rho, mu, sd) of one start: quantiles (first start, one column) or k-means++ seeding."""
    n, d = Y.shape
    p = w / w.sum()
    mean = p @ Y
    var_y = p @ (Y - mean) ** 2
    var_x = np.maximum(var_y - 2.0 * phi**2, 0.05 * var_y)
    var_x = np.where(var_x > 0, var_x, 1.0)
    if first and d == 1:
        order = np.argsort(Y[:, 0], kind="stable")
        cum = np.cumsum(p[order])
        idx = order[np.minimum(np.searchsorted(cum, (np.arange(K) + 0.5) / K), n - 1)]
        mu = Y[idx].copy()
    else:
        scale = np.sqrt(var_y)
        scale = np.where(scale > 0, scale, 1.0)
        Z = Y / scale
        centers = [int(rng.choice(n, p=p))]
        d2 = ((Z - Z[centers[0]]) ** 2).sum(axis=1)
        for _ in range(1, K):
            q = p * d2
            tot = q.sum()
            nxt = int(rng.choice(n, p=q / tot)) if tot > 0 else int(rng.choice(n, p=p))
            centers.append(nxt)
            d2 = np.minimum(d2, ((Z - Z[nxt]) ** 2).sum(axis=1))
        mu = Y[centers].copy()
    sd = np.tile(np.sqrt(var_x / K), (K, 1))
    rho = np.full(K, 1.0 / K)
    return rho, mu, sd


class _State:
    __slots__ = ("rho", "mu", "sd", "L", "Nk", "A1", "A2", "history", "n_iter", "converged", "alpha", "n_prefit")

    def __init__(self, rho, mu, sd, alpha):
        self.rho, self.mu, self.sd, self.alpha = rho, mu, sd, alpha
        self.history: list[float] = []
        self.n_iter = 0
        self.n_prefit = 0
        self.converged = False


def _evaluate(state: _State, Y, w, phi, nch) -> None:
    from ..kernels.laplace_em import em_pass

    with np.errstate(divide="ignore"):
        log_rho = np.log(state.rho)
    state.L, state.Nk, state.A1, state.A2 = em_pass(Y, w, log_rho, state.mu, state.sd, phi, nch)


def _propose(state: _State, method: str, total: float, sd_floor: np.ndarray):
    """M-step from the statistics of the current parameters: exact EM or the paper's step."""
    Nk, A1, A2 = state.Nk, state.A1, state.A2
    rho = Nk / total
    live = (Nk > 1e-10 * total)[:, None]
    safe = np.where(live, Nk[:, None], 1.0)
    if method == "exact":
        M1 = A1 / safe
        M2 = A2 / safe
        mu = state.mu + state.sd * M1
        var = state.sd**2 * np.maximum(M2 - M1**2, 0.0)
        sd = np.maximum(np.sqrt(var), sd_floor)
    else:  # eq. 11: mu += alpha dL/dmu, sigma += alpha dL/dsigma (Fisher's identity)
        mu = state.mu + state.alpha * A1 / state.sd
        sd = state.sd + state.alpha * (A2 - Nk[:, None]) / state.sd
        sd = np.where(np.isfinite(sd), np.maximum(sd, sd_floor), sd)  # projected onto the floor
    mu = np.where(live, mu, state.mu)
    sd = np.where(live, sd, state.sd)
    return rho, np.ascontiguousarray(mu), np.ascontiguousarray(sd)


def _accept(state: _State, trial: _State) -> None:
    state.rho, state.mu, state.sd = trial.rho, trial.mu, trial.sd
    state.L, state.Nk, state.A1, state.A2 = trial.L, trial.Nk, trial.A1, trial.A2
    state.history.append(state.L)


def _iterate(state: _State, Y, w, phi, method, max_iter, tol, sd_floor, accelerate=False, meter=None,
             screening=False) -> _State:
    """Run EM from ``state`` (already evaluated) until ``|L_new - L_old| < tol`` or ``max_iter``
    passes over the data (``state.n_iter`` counts them); ``meter`` (an :class:`EMMeter`)
    hears of every pass (``screening``: a start's short run)."""
    if meter is None:
        return _iterate_passes(state, Y, w, phi, method, max_iter, tol, sd_floor, accelerate, None)
    meter.start_run(max_iter - state.n_iter, screening)
    try:
        return _iterate_passes(state, Y, w, phi, method, max_iter, tol, sd_floor, accelerate, meter.tick)
    finally:
        meter.end_run()


def _iterate_passes(state: _State, Y, w, phi, method, max_iter, tol, sd_floor, accelerate, tick) -> _State:
    if accelerate and method == "exact":
        return _iterate_squarem(state, Y, w, phi, max_iter, tol, sd_floor, tick)
    nch = _n_chunks(Y.shape[0])
    total = float(w.sum())
    if not state.history:
        state.history.append(state.L)
    halvings = 0
    while state.n_iter < max_iter:
        rho, mu, sd = _propose(state, method, total, sd_floor)
        trial = _State(rho, mu, sd, state.alpha)
        ok = np.all(sd >= sd_floor) and np.all(np.isfinite(mu)) and np.all(np.isfinite(sd))
        if ok:
            _evaluate(trial, Y, w, phi, nch)
        state.n_iter += 1
        if method == "gem" and (not ok or not trial.L >= state.L - 1e-12 * abs(state.L)):
            # the paper's fixed learning rate can overshoot: halve it and retry (GEM stays monotone)
            if tick is not None:
                tick(None)
            state.alpha *= 0.5
            halvings += 1
            if halvings > 60:
                break
            continue
        old = state.L
        _accept(state, trial)
        if tick is not None:
            tick(abs(state.L - old))
        if abs(state.L - old) < tol:
            state.converged = True
            break
    return state


def _pack(rho: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
    return np.concatenate([np.log(np.maximum(rho, 1e-300)), mu.ravel(), np.log(sd).ravel()])


def _iterate_squarem(state: _State, Y, w, phi, max_iter, tol, sd_floor, tick=None) -> _State:
    """Exact EM accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3) in the coordinates
    (log rho, mu, log sd): two EM steps ``t1 = M(t0)``, ``t2 = M(t1)``, the extrapolation
    ``t0 - 2 a r + a^2 v`` (``r = t1 - t0``, ``v = t2 - 2 t1 + t0``, ``a = -|r|/|v|``), kept
    only if its likelihood is at least that of ``t2``: the likelihood never decreases."""
    nch = _n_chunks(Y.shape[0])
    total = float(w.sum())
    K, d = state.mu.shape
    if not state.history:
        state.history.append(state.L)
    step_max = 4.0
    while state.n_iter < max_iter:
        old = state.L
        p0 = _pack(state.rho, state.mu, state.sd)
        s1 = _State(*_propose(state, "exact", total, sd_floor), state.alpha)
        _evaluate(s1, Y, w, phi, nch)
        state.n_iter += 1
        _accept(state, s1)
        if tick is not None:
            tick(abs(state.L - old))
        if abs(state.L - old) < tol or state.n_iter >= max_iter:
            state.converged = abs(state.L - old) < tol
            break
        s2 = _State(*_propose(state, "exact", total, sd_floor), state.alpha)
        _evaluate(s2, Y, w, phi, nch)
        state.n_iter += 1
        if tick is not None:
            tick(None)
        p1 = _pack(s1.rho, s1.mu, s1.sd)
        p2 = _pack(s2.rho, s2.mu, s2.sd)
        r = p1 - p0
        v = p2 - 2.0 * p1 + p0
        nv = float(np.sqrt(v @ v))
        best = s2
        if nv > 0 and state.n_iter < max_iter:
            a = -float(np.sqrt(r @ r)) / nv
            a = max(min(a, -1.0), -step_max)
            if a < -1.0:
                q = p0 - 2.0 * a * r + a * a * v
                lr = q[:K] - q[:K].max()
                rho = np.exp(lr) / np.exp(lr).sum()
                mu = q[K:K + K * d].reshape(K, d)
                with np.errstate(over="ignore"):  # an overshooting step is rejected just below
                    sd = np.maximum(np.exp(q[K + K * d:]).reshape(K, d), sd_floor)
                if np.all(np.isfinite(mu)) and np.all(np.isfinite(sd)):
                    s3 = _State(rho, np.ascontiguousarray(mu), np.ascontiguousarray(sd), state.alpha)
                    _evaluate(s3, Y, w, phi, nch)
                    state.n_iter += 1
                    if tick is not None:
                        tick(None)
                    if s3.L >= s2.L:
                        best = s3
                        if a == -step_max:
                            step_max *= 4.0
        _accept(state, best)
        if abs(state.L - old) < tol:
            state.converged = True
            break
    return state


def _run_diagonal(Y, w, phi, K, *, method, n_init, seed, max_iter, tol, alpha, init_iter, accelerate=True, prefit=None,
                  sd_min=None, meter=None):
    """Starts (screened for ``init_iter`` passes), then the best to convergence. With
    ``prefit = (centres, counts)`` the starts run to convergence on that histogram first and
    only the winner is polished on the records, so few passes over a large n are needed."""
    rng = np.random.default_rng(seed)
    p = w / w.sum()
    sd_y = np.sqrt(p @ (Y - p @ Y) ** 2)
    sd_floor = _sd_floor(sd_y, sd_min)
    Ys, ws = prefit if prefit is not None else (Y, w)
    nch = _n_chunks(Ys.shape[0])
    starts = []
    for s in range(n_init):
        rho, mu, sd = _init_start(Ys, ws, phi, K, rng, first=(s == 0))
        st = _State(rho, mu, np.maximum(sd, sd_floor), alpha)
        _evaluate(st, Ys, ws, phi, nch)
        if n_init > 1:
            _iterate(st, Ys, ws, phi, method, min(init_iter, max_iter), tol, sd_floor, accelerate, meter, True)
        starts.append(st)
    best = max(starts, key=lambda s: s.L)
    n_prefit = 0
    if prefit is not None:
        _iterate(best, Ys, ws, phi, method, max_iter, tol, sd_floor, accelerate, meter)
        n_prefit = sum(s.n_iter for s in starts)
        best = _State(best.rho, best.mu, best.sd, best.alpha)
        _evaluate(best, Y, w, phi, _n_chunks(Y.shape[0]))
    elif n_init > 1:
        n_prefit = sum(s.n_iter for s in starts if s is not best)
    if not best.converged:
        _iterate(best, Y, w, phi, method, max_iter, tol, sd_floor, accelerate, meter)
    best.n_prefit = n_prefit
    return best


def _run_rotated(Y, w, phi, K, *, method, n_init, seed, max_iter, tol, alpha, init_iter, accelerate=False, sd_min=None,
                 meter=None):
    """Algorithm 2: responsibilities, hard assignment, per-component PCA rotation, a diagonal
    M-step in each component's frame, rotation back. Returns the state with rotations."""
    rng = np.random.default_rng(seed)
    n, d = Y.shape
    total = float(w.sum())
    p = w / total
    sd_y = np.sqrt(p @ (Y - p @ Y) ** 2)
    sd_floor = _sd_floor(sd_y, sd_min)

    def run(rho, mu, sdr, R, steps, alpha_):
        # mu: (K, d) original coordinates; sdr: (K, d) along each component's axes R[l] (columns)
        from ..kernels.laplace_em import component_moments, log_components

        history: list[float] = []
        converged = False
        it = 0
        L_old = -np.inf
        while it < steps:
            logp = np.empty((n, K))
            for l in range(K):
                ph = np.sqrt((R[l] ** 2).T @ phi**2)
                Z = np.ascontiguousarray(Y @ R[l])
                with np.errstate(divide="ignore"):
                    lr = np.array([np.log(rho[l])])
                logp[:, l] = log_components(Z, lr, (mu[l] @ R[l])[None, :], sdr[l][None, :], ph)[:, 0]
            top = logp.max(axis=1, keepdims=True)
            lse = top[:, 0] + np.log(np.exp(logp - top).sum(axis=1))
            L = float(w @ lse)
            history.append(L)
            if meter is not None and it:
                meter.tick(abs(L - L_old))
            if abs(L - L_old) < tol:
                converged = True
                break
            L_old = L
            it += 1
            gamma = np.exp(logp - lse[:, None]) * w[:, None]
            hard = np.argmax(logp, axis=1)
            new_rho = gamma.sum(axis=0) / total
            for l in range(K):
                members = hard == l
                if members.sum() > d:  # E-step-2: PCA of the records assigned to l
                    C = np.cov(Y[members].T, aweights=w[members]).reshape(d, d)
                    _, vecs = np.linalg.eigh(C)
                    cov_old = (R[l] * sdr[l] ** 2) @ R[l].T
                    R_new = vecs
                    sd_rot = np.sqrt(np.maximum(np.einsum("ji,jk,ki->i", R_new, cov_old, R_new), sd_floor**2))
                    R[l], sdr[l] = R_new, sd_rot
                if new_rho[l] * total <= 1e-10 * total:
                    continue
                ph = np.sqrt((R[l] ** 2).T @ phi**2)
                Z = np.ascontiguousarray(Y @ R[l])
                m = mu[l] @ R[l]
                N, A1, A2 = component_moments(Z, np.ascontiguousarray(gamma[:, l]), m, sdr[l], ph)
                if method == "exact":
                    M1, M2 = A1 / N, A2 / N
                    m_new = m + sdr[l] * M1
                    s_new = np.maximum(sdr[l] * np.sqrt(np.maximum(M2 - M1**2, 0.0)), sd_floor)
                else:
                    m_new = m + alpha_ * A1 / sdr[l]
                    s_new = np.maximum(sdr[l] + alpha_ * (A2 - N) / sdr[l], sd_floor)
                mu[l] = R[l] @ m_new  # M-step-1: rotate back
                sdr[l] = s_new
            rho = new_rho
        return rho, mu, sdr, R, history, converged, it

    best = None
    for s in range(n_init):
        rho, mu, sd = _init_start(Y, w, phi, K, rng, first=(s == 0))
        sd = np.maximum(sd, sd_floor)
        R = np.tile(np.eye(d), (K, 1, 1))
        steps = min(init_iter, max_iter) if n_init > 1 else max_iter
        if meter is not None:
            meter.start_run(steps, n_init > 1)
        res = run(rho, mu.copy(), sd.copy(), R, steps, alpha)
        if meter is not None:
            meter.end_run()
        if best is None or res[4][-1] > best[4][-1]:
            best = res
    rho, mu, sdr, R, history, converged, it = best
    if not converged and n_init > 1:
        if meter is not None:
            meter.start_run(max_iter - it, False)
        more = run(rho, mu, sdr, R, max_iter - it, alpha)
        if meter is not None:
            meter.end_run()
        rho, mu, sdr, R = more[:4]
        history = history + more[4]
        converged, it = more[5], it + more[6]
    return rho, mu, sdr, R, history, converged, it
