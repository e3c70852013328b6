"""Mutation trial: re-apply one-line deliberate bugs and check that the tests catch each.

Every mutation is (file, exact old text, new text, tests): the old text must occur exactly
once in the file (text, not line numbers, so the list survives refactoring). A mutation whose
text is no longer found exactly once is reported as "n/a" and makes the script exit non-zero
(status 3; ``--check`` only checks that every mutation applies, without running tests), so
the list cannot silently rot. For each mutation the script
copies the package and the tests once into a scratch directory, applies that one change,
runs the named tests there (plus the mutated module's doctests) with the derandomised
hypothesis profile "ci", and prints whether the mutant was killed (a test failed, or it
timed out) or survived. The working tree is never modified.

    python tools/mutants.py                 # all mutations
    python tools/mutants.py ild recode      # only those whose name contains a word
    python tools/mutants.py --list          # the table of mutations, nothing run
    python tools/mutants.py --check         # every mutation applies (exit 3 if not), nothing run

Numba caches: the scratch copy has its own ``__pycache__``; a mutated file gets a new mtime
(so Numba's cache index, keyed by the source's mtime and size, recompiles it) and the
original is restored with its original mtime afterwards.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]


M = Mutation
MUTATIONS: list[Mutation] = [
    # -- the four of issue 18 ------------------------------------------------------------
    M("mil-exchange-skip-and-or", "polars_sdc/kernels/mil.py",
      "if stamp[a] < sweep - 1 and stamp[b] < sweep - 1:",
      "if stamp[a] < sweep - 1 or stamp[b] < sweep - 1:",
      ("tests/test_mil_exchange_kernel.py", "tests/test_mil.py")),
    M("ild-weight-exponent", "polars_sdc/loss/ild.py",
      "return float(w[0] ** (e / 2) * per_block[0])",
      "return float(w[0] ** e * per_block[0])",
      ("tests/test_ild.py",)),
    M("recode-ordinal-tie", "polars_sdc/recode/plan.py",
      "j = i - 1 if nodes[i - 1].count <= nodes[i + 1].count else i + 1",
      "j = i - 1 if nodes[i - 1].count < nodes[i + 1].count else i + 1",
      ("tests/test_recode.py",)),
    M("microagg-standardize-ignored", "polars_sdc/microagg/pipeline.py",
      "return features(df, columns, standardize=self.standardize, ordinal=",
      "return features(df, columns, standardize=True, ordinal=",
      ("tests/test_mdav.py", "tests/test_mixed.py")),
    # -- kernels -------------------------------------------------------------------------
    M("sse-group-mean", "polars_sdc/kernels/sse.py",
      "sums[g, j] /= counts[g]",
      "sums[g, j] /= counts[g] + 1",
      ("tests/test_sse.py", "tests/test_mdav.py")),
    M("sse-total-mean", "polars_sdc/kernels/sse.py",
      "        m /= n\n",
      "        m /= n + 1\n",
      ("tests/test_sse.py", "tests/test_mdav.py")),
    M("mdav-farthest-tie", "polars_sdc/kernels/mdav.py",
      "if d >= best and (d > best or o < bo):",
      "if d >= best and (d > best or o > bo):",
      ("tests/test_mdav.py",)),
    M("vmdav-gain-factor", "polars_sdc/kernels/vmdav.py",
      "g2 = gamma * gamma",
      "g2 = gamma",
      ("tests/test_vmdav.py",)),
    M("hm-edge-length", "polars_sdc/kernels/hansen_mukherjee.py",
      "c = s2 - q / m",
      "c = s2 - q / (m + 1)",
      ("tests/test_mhm.py", "tests/test_univariate.py")),
    M("levenshtein-insertion", "polars_sdc/kernels/strings.py",
      "if row[j - 1] + 1 < best:",
      "if row[j - 1] + 2 < best:",
      ("tests/test_dist.py", "tests/test_ild.py")),
    # the one SSE-change formula of MIL's moves / exchanges and the annealing's (kernels/_common.py)
    M("mil-move-cost", "polars_sdc/kernels/_common.py",
      "return nb / (nb + 1.0) * d_b - na / (na - 1.0) * d_a",
      "return d_b - na / (na - 1.0) * d_a",
      ("tests/test_mil.py",)),
    M("mil-exchange-delta-sign", "polars_sdc/kernels/_common.py",
      "return ja - ia + ib - jb - dij * (1.0 / na + 1.0 / nb)",
      "return ja - ia + ib - jb + dij * (1.0 / na + 1.0 / nb)",
      ("tests/test_mil_exchange_kernel.py", "tests/test_mil.py")),
    # -- loss ----------------------------------------------------------------------------
    M("dm-small-class-bound", "polars_sdc/loss/classic.py",
      "big = sizes >= k",
      "big = sizes > k",
      ("tests/test_classic.py",)),
    M("ilssdm-constant-data", "polars_sdc/loss/sse.py",
      "        raise TypeError(\"ilssdm needs groups= or masked=\")\n    return err / total if total > 0 else 0.0",
      "        raise TypeError(\"ilssdm needs groups= or masked=\")\n    return err / total if total > 0 else 1.0",
      ("tests/test_sse.py", "tests/test_ild.py", "tests/test_classic.py")),
    # -- recoding ------------------------------------------------------------------------
    # the live loop (_plan_free_fast); _plan_free, its twin, is only the tests' reference now
    M("recode-stop-rule", "polars_sdc/recode/plan.py",
      "while len(heap) > 1 and heap[0][0] <= th:\n        c1, p1 = heapq.heappop(heap)",
      "while len(heap) > 1 and heap[0][0] < th:\n        c1, p1 = heapq.heappop(heap)",
      ("tests/test_recode.py",)),
    M("recode-threshold-float", "polars_sdc/recode/plan.py",
      "return int(math.floor(n * p + 1e-9 * max(1.0, n * p)))",
      "return int(math.floor(n * p))",
      ("tests/test_recode.py",)),
    # -- noise and reconstruction --------------------------------------------------------
    M("pk-phi-log", "polars_sdc/laplace.py",
      "math.log((n - 1) / (k - 1))",
      "math.log(n / (k - 1))",
      ("tests/test_laplace.py",)),
    M("laplace-clamp", "polars_sdc/laplace.py",
      "np.clip(y, float(bounds[0]), float(bounds[1]), out=y)",
      "np.clip(y, float(bounds[0]), float(bounds[1]) + 1.0, out=y)",
      ("tests/test_laplace.py",)),
    M("l1-accuracy-half", "polars_sdc/reconstruct/accuracy.py",
      "return float(100.0 * (1.0 - 0.5 * np.abs(a - b).sum()))",
      "return float(100.0 * (1.0 - np.abs(a - b).sum()))",
      ("tests/test_reconstruct.py",)),
    # -- release checks (risk) and representatives ---------------------------------------
    M("k-anonymity-max", "polars_sdc/anonymity.py",
      'return int(df.group_by(on).len()["len"].min())',
      'return int(df.group_by(on).len()["len"].max())',
      ("tests/test_anonymity.py", "tests/test_aggregate.py")),
    M("mode-tie-largest", "polars_sdc/aggregate.py",
      "return col.mode().min().over(group).alias(column)",
      "return col.mode().max().over(group).alias(column)",
      ("tests/test_aggregate.py", "tests/test_mixed.py")),
    M("ordinal-upper-median", "polars_sdc/aggregate.py",
      "col.sort().get((pl.len() - 1) // 2)",
      "col.sort().get(pl.len() // 2)",
      ("tests/test_aggregate.py", "tests/test_mixed.py")),
    # -- subtler ones: scales, tie rules, strata, the per-row generator -----------------------
    M("features-ordinal-scale", "polars_sdc/microagg/features.py",
      "blocks.append(_weighted((codes / max(size, 1)).reshape(-1, 1), w))",
      "blocks.append(_weighted((codes / max(size - 1, 1)).reshape(-1, 1), w))",
      ("tests/test_mixed.py", "tests/test_mdav.py")),
    M("features-nominal-weight", "polars_sdc/microagg/features.py",
      "np.zeros((1, 1)), w / 2.0))",
      "np.zeros((1, 1)), w))",
      ("tests/test_mixed.py", "tests/test_mdav.py")),
    M("vmdav-1d-join-tie", "polars_sdc/kernels/vmdav.py",
      "join = d_in < gamma * (s[hi] - s[hi - 1])",
      "join = d_in <= gamma * (s[hi] - s[hi - 1])",
      ("tests/test_vmdav.py",)),
    M("vmdav-seed-tie", "polars_sdc/kernels/vmdav.py",
      "if dc[i] > dc[r] or (dc[i] == dc[r] and idx[i] < idx[r]):",
      "if dc[i] > dc[r] or (dc[i] == dc[r] and idx[i] > idx[r]):",
      ("tests/test_vmdav.py",)),
    M("strata-id-offset", "polars_sdc/microagg/refine.py",
      "used += int(part.max()) + 1 if part.size else 0",
      "used += int(part.max()) if part.size else 0",
      ("tests/test_pipeline.py", "tests/test_mdav.py")),
    # -- risk, pooling and rounding -------------------------------------------------------
    M("risk-fk2-sign", "polars_sdc/risk/individual.py",
      "r[two] = pk[two] - pk[two] ** 2 * _fk2_tail(q[two], _ln_inv_pk(q[two], fk[two], F[two]))",
      "r[two] = pk[two] + pk[two] ** 2 * _fk2_tail(q[two], _ln_inv_pk(q[two], fk[two], F[two]))",
      ("tests/test_risk_individual.py",)),
    M("risk-fk-more", "polars_sdc/risk/individual.py",
      "r[more] = (pk / (fk - q))[more]",
      "r[more] = (pk / (fk - pk))[more]",
      ("tests/test_risk_individual.py",)),
    M("suda-weight", "polars_sdc/risk/suda.py",
      "[float(factorial(M - s)) for s in range(1, M + 1)]",
      "[float(factorial(M - s + 1)) for s in range(1, M + 1)]",
      ("tests/test_risk_suda.py",)),
    M("pooled-strata-unlabelled", "polars_sdc/microagg/pipeline.py",
      "                pooled[rows] = True",
      "                pooled[rows] = False",
      ("tests/test_strata_pooling.py",)),
    M("integer-mean-half-up", "polars_sdc/aggregate.py",
      "up = (2 * r > n) | ((2 * r == n) & (q % 2 != 0))",
      "up = 2 * r >= n",
      ("tests/test_aggregate.py",)),
    M("mil-cycle-cap", "polars_sdc/microagg/mil.py",
      "cap = min(3 * k, max(2 * k, _CYCLE_CAP))",
      "cap = k",
      ("tests/test_mil.py", "tests/test_mil_exchange_kernel.py")),
    M("ncp-range-per-row", "polars_sdc/loss/classic.py",
      'total += w * float((spans["s"] * spans["n"]).sum()) / rng',
      'total += w * float(spans["s"].sum()) / rng',
      ("tests/test_classic.py",)),
    M("cramers-v-dof", "polars_sdc/utility/association.py",
      'return float(min(np.sqrt(chi2 / (s["n"] * (k - 1))), 1.0))',
      'return float(min(np.sqrt(chi2 / (s["n"] * k)), 1.0))',
      ("tests/test_utility.py",)),
    M("ordinal-distance-denominator", "polars_sdc/loss/dist.py",
      "return np.array([rank[v] for v in vals], dtype=np.float64) / len(self.categories)",
      "return np.array([rank[v] for v in vals], dtype=np.float64) / (len(self.categories) - 1)",
      ("tests/test_dist.py", "tests/test_ild.py")),
    M("rng-laplace-sign-dropped", "polars_sdc/rng.py",
      "return -scale * np.sign(u) * np.log1p(-2.0 * np.abs(u))",
      "return -scale * np.log1p(-2.0 * np.abs(u))",
      ("tests/test_rng_distribution.py", "tests/test_laplace.py")),
    M("rng-stream-ignored", "polars_sdc/rng.py",
      'digest = hashlib.blake2b(f"{int(seed)}\\x00{stream}".encode("utf-8"), digest_size=8).digest()',
      'digest = hashlib.blake2b(f"{int(seed)}\\x00".encode("utf-8"), digest_size=8).digest()',
      ("tests/test_rng_distribution.py", "tests/test_laplace.py")),
    # -- issue 28.7: the two that survived a mutation trial ------------------------------------
    M("suppress-default-order", "polars_sdc/masking/suppress.py",
      'order = np.argsort(-ncat, kind="stable")',
      'order = np.argsort(ncat, kind="stable")',
      ("tests/test_missing_rule.py", "tests/test_masking_suppress.py")),
    M("anneal-group-cap", "polars_sdc/microagg/anneal.py",
      "umax = max(2 * k - 1, 1)",
      "umax = max(2 * k, 1)",
      ("tests/test_anneal_group_sizes.py", "tests/test_refine_anneal.py")),
]


def _stale(m: Mutation) -> str:
    """Why the mutation cannot be applied to today's code ("" if it can)."""
    path = ROOT / m.file
    if not path.exists():
        return f"{m.file} no longer exists"
    found = path.read_text().count(m.old)
    if found != 1:
        return f"old text found {found} times in {m.file}"
    missing = [t for t in m.tests if not (ROOT / t).exists()]
    return f"test file {missing[0]} no longer exists" if missing else ""


def _copy_tree(dst: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "*.nbi", "*.nbc")
    for part in ("polars_sdc", "tests"):
        shutil.copytree(ROOT / part, dst / part, ignore=ignore)
    for f in ("pyproject.toml", "README.md"):
        if (ROOT / f).exists():
            shutil.copy2(ROOT / f, dst / f)


def _pytest(work: Path, targets: list[str], timeout: float) -> tuple[str, str, float]:
    """(outcome, first failing test or note, seconds); outcome is passed / failed / timeout."""
    env = dict(os.environ, PYTHONPATH=str(work), HYPOTHESIS_PROFILE="ci", PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:randomly",
           "-o", "addopts=", "--doctest-modules", *targets]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result after {timeout:.0f} s", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    if proc.returncode == 0:
        return "passed", "", dt
    failed = re.findall(r"^FAILED (\S+)", proc.stdout, re.M)
    note = failed[0] if failed else (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or ["?"])[-1]
    return "failed", note, dt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="run only mutations whose name contains one of these words")
    ap.add_argument("--list", action="store_true", help="print the mutations and exit")
    ap.add_argument("--check", action="store_true", help="check that every mutation applies, run nothing")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (a timeout counts as killed)")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTATIONS if not args.only or any(w in m.name for w in args.only)]
    if args.list:
        for m in chosen:
            print(f"{m.name:30s} {m.file}\n    - {m.old.strip()}\n    + {m.new.strip()}\n    tests: {' '.join(m.tests)}")
        return 0
    stale = [(m, note) for m in chosen if (note := _stale(m))]
    for m, note in stale:
        print(f"n/a: {m.name}: {note}", file=sys.stderr)
    if args.check:
        print(f"{len(chosen) - len(stale)} of {len(chosen)} mutations apply")
        return 3 if stale else 0

    rows = []
    with tempfile.TemporaryDirectory(prefix="sdc-mutants-") as tmp:
        work = Path(tmp)
        _copy_tree(work)
        # baseline: every test file used must pass unmutated (this also fills the Numba cache)
        files = sorted({t for m in chosen for t in m.tests})
        outcome, note, dt = _pytest(work, files, args.timeout * 3)
        print(f"baseline ({len(files)} test files): {outcome} in {dt:.0f} s {note}", flush=True)
        if outcome != "passed":
            print("the unmutated tests must pass first", file=sys.stderr)
            return 2
        for i, m in enumerate(chosen, 1):
            path = work / m.file
            if not path.exists():
                rows.append((m, "n/a", f"{m.file} no longer exists", 0.0))
                continue
            src = path.read_text()
            found = src.count(m.old)
            if found != 1:
                rows.append((m, "n/a", f"old text found {found} times in {m.file}", 0.0))
                continue
            st = path.stat()
            try:
                path.write_text(src.replace(m.old, m.new))
                bump = st.st_mtime_ns + (1000 + i) * 1_000_000_000  # a new stamp for Numba and pyc
                os.utime(path, ns=(bump, bump))
                targets = [t for t in m.tests if (work / t).exists()]
                if m.file.endswith(".py"):
                    targets.append(m.file)  # its doctests too
                outcome, note, dt = _pytest(work, targets, args.timeout)
            finally:
                path.write_text(src)
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            status = {"passed": "SURVIVED", "failed": "killed", "timeout": "killed"}[outcome]
            rows.append((m, status, note, dt))
            print(f"[{i}/{len(chosen)}] {m.name}: {status} ({dt:.0f} s) {note}", flush=True)

    print()
    print(f"| {'mutation':30s} | {'file':38s} | {'result':8s} | caught by / note")
    print(f"|{'-' * 32}|{'-' * 40}|{'-' * 10}|-----------------")
    for m, status, note, _ in rows:
        print(f"| {m.name:30s} | {m.file:38s} | {status:8s} | {note}")
    killed = sum(s == "killed" for _, s, _, _ in rows)
    survived = sum(s == "SURVIVED" for _, s, _, _ in rows)
    na = sum(s == "n/a" for _, s, _, _ in rows)
    print(f"\nkilled {killed}, survived {survived}, not applicable {na} (of {len(rows)})")
    return 1 if survived else 3 if na else 0


if __name__ == "__main__":
    sys.exit(main())
