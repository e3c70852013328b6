"""Write notebooks/05_reconstruction.ipynb (then execute it with tools/run_notebooks.py)."""
from pathlib import Path

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# Laplace noise and reconstructing the distribution (Hasegawa et al.)

Protect a numeric column by adding Laplace noise, then recover the *distribution* of the original
values from the noisy release alone: a Gaussian mixture convolved with the Laplace noise is fitted
by EM (`reconstruct_gmm`), next to the paper's baseline, the Iterative Bayesian Technique
(`reconstruct_ibt`). Data: the paper's synthetic 1-D mixture
(mu = -1, 3, 5, 9; rho = .1, .6, .2, .1; sigma^2 = .1, .2, .5, .01), small N so CI stays quick."""),
    code("""import numpy as np
import polars as pl
import matplotlib.pyplot as plt
import polars_sdc
from polars_sdc import pk_phi

rng = np.random.default_rng(0)
mu, rho, var = np.array([-1, 3, 5, 9.0]), np.array([.1, .6, .2, .1]), np.array([.1, .2, .5, .01])
n = 5000
z = rng.choice(4, size=n, p=rho)
df = pl.DataFrame({"id": np.arange(n), "x": rng.normal(mu[z], np.sqrt(var[z]))})
df.head()"""),
    md("""## Perturb: `df.sdc.laplace(...)`
`k=2` calibrates the noise scale for Pk-anonymity, `phi = 2 (b - a) / ln((N - 1)/(k - 1))`, from the
column's range; `seed` makes the noise reproducible (eager, lazy and streaming give the same numbers)."""),
    code("""phi = pk_phi(df["x"].min(), df["x"].max(), n, 2)
noisy = df.sdc.laplace(on="x", k=2, seed=7)
lazy = df.lazy().sdc.laplace(on="x", k=2, seed=7).collect(engine="streaming")
print(f"phi = {phi:.3f}; lazy streaming == eager: {lazy.equals(noisy)}")
noisy.head()"""),
    md("## Reconstruct: `noisy.sdc.reconstruct_gmm(K, on, phi)`\nK may be a range; the fit with the lowest BIC is returned, with every K's score."),
    code("""fit = noisy.sdc.reconstruct_gmm(range(2, 7), "x", phi=phi, seed=0)
print(fit)
print("K, loglik, BIC:", [(k, round(l, 1), round(b, 1)) for k, l, b in fit.scores])
fit.to_frame()"""),
    code("""edges = np.linspace(df["x"].min(), df["x"].max(), 61)
ibt = noisy.sdc.reconstruct_ibt("x", phi, edges)
truth = np.histogram(df["x"], edges)[0]
print(f"L1 accuracy  GMM: {polars_sdc.l1_accuracy(truth, fit.histogram(edges)):.2f}   "
      f"IBT: {polars_sdc.l1_accuracy(truth, ibt.probabilities):.2f}")"""),
    code("""xs = np.linspace(-8, 16, 1200)
true_pdf = (rho / np.sqrt(2 * np.pi * var) * np.exp(-0.5 * (xs[:, None] - mu) ** 2 / var)).sum(axis=1)
fig, ax = plt.subplots(figsize=(9, 4))
ax.plot(xs, true_pdf, "k", lw=1, label="true density of x")
ax.hist(noisy["x"], bins=120, density=True, alpha=0.3, label="noisy release y")
ax.plot(xs, fit.noisy_pdf(xs), "C0--", label="fitted density of y (eq. 6)")
ax.plot(xs, fit.pdf(xs), "C3", label=f"reconstructed x (GMM, K={fit.K})")
ax.stairs(ibt.probabilities / np.diff(edges), edges, color="C2", label="IBT histogram")
ax.set_ylim(0, 1.15 * max(true_pdf.max(), fit.pdf(xs).max()))
ax.set(xlabel="x", ylabel="density (per unit of x)", title=f"True, noisy and reconstructed distribution (N = {n}, phi = {phi:.2f})")
ax.legend(); plt.show()"""),
    md("""## The exact EM and the paper's generalised EM
The exact EM uses the posterior of x given y (a two-piece truncated normal) and its likelihood never
decreases; the paper's generalised EM takes gradient steps with a learning rate."""),
    code("""exact = noisy.sdc.reconstruct_gmm(4, "x", phi=phi, n_init=1, accelerate=False, max_iter=3000)
gem = noisy.sdc.reconstruct_gmm(4, "x", phi=phi, n_init=1, method="gem", alpha=1e-3, max_iter=3000)
fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(exact.history, label=f"exact EM ({exact.n_iter} passes)")
ax.plot(gem.history, label=f"generalised EM ({gem.n_iter} passes)")
ax.set_ylim(exact.history[-1] - 60, exact.history[-1] + 5)
ax.set(xlabel="pass", ylabel="log-likelihood", title="Exact EM against the generalised EM (K = 4)")
ax.legend(); plt.show()
print("monotone:", bool(np.all(np.diff(exact.history) >= -1e-9 * abs(exact.loglik))))"""),
    md("## Clustering and a synthetic sample\nThe most responsible component of each noisy record (Hasegawa et al., 4.3), and records drawn from the reconstruction."),
    code("""clusters = fit.predict(noisy)
print(pl.DataFrame({"true component": z, "predicted": clusters}).group_by("true component", "predicted").len().sort("len", descending=True).head(6))
fit.sample(5, seed=1)"""),
    md("""## Two columns: a cross table from noisy data
Correlated clusters; the diagonal model (eq. 19) and Algorithm 2 (per-component PCA rotation,
`model="rotated"`); each fit gives the cross table on any grid with `crosstab`."""),
    code("""m = np.array([[-2.0, -2.0], [2.0, 1.0]])
C = np.array([[[1.0, 0.85], [0.85, 1.0]], [[1.0, -0.7], [-0.7, 1.0]]])
g = rng.choice(2, size=4000)
X = m[g] + np.einsum("nij,nj->ni", np.linalg.cholesky(C)[g], rng.standard_normal((4000, 2)))
two = pl.DataFrame({"a": X[:, 0], "b": X[:, 1]})
noisy2 = two.sdc.laplace(0.5, ["a", "b"], seed=3)
diag = noisy2.sdc.reconstruct_gmm(2, ["a", "b"], phi=0.5)
rot = noisy2.sdc.reconstruct_gmm(2, ["a", "b"], phi=0.5, model="rotated")
grid = [np.linspace(-6, 6, 25)] * 2
true_ct = np.histogram2d(X[:, 0], X[:, 1], grid)[0]
noisy_ct = np.histogram2d(noisy2["a"], noisy2["b"], grid)[0]
panels = [("true", true_ct), ("noisy", noisy_ct), ("diagonal K=2", diag.crosstab(grid)), ("Algorithm 2 K=2", rot.crosstab(grid))]
fig, axes = plt.subplots(1, 4, figsize=(15, 3.6), sharey=True, layout="constrained")
vmax = max((ct / ct.sum()).max() for _, ct in panels)
for ax, (name, ct) in zip(axes, panels):
    im = ax.imshow(ct.T / ct.sum(), origin="lower", extent=[-6, 6, -6, 6], cmap="viridis", vmin=0, vmax=vmax)
    ax.set_title(f"{name}\\nL1 acc. {polars_sdc.l1_accuracy(true_ct, ct):.1f}")
    ax.set_xlabel("a")
axes[0].set_ylabel("b")
fig.colorbar(im, ax=axes, label="share of records per cell")
plt.show()"""),
]
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"}}
out = Path(__file__).parent.parent / "notebooks" / "05_reconstruction.ipynb"
nbf.write(nb, out)
print("wrote", out)
