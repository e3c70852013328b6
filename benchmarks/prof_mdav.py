"""First-call compile profile of MDAV on n rows (fresh process; run with an empty
NUMBA_CACHE_DIR): CPU seconds, compilations, the kernels with the largest exclusive compile
time, and where the top kernel's time went (Numba's passes vs LLVM).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/prof_mdav.py 5000 a,b,c [--warm]
"""
import sys, time, numpy as np, polars as pl, polars_sdc
from numba.core import event
n = int(sys.argv[1]); cols = sys.argv[2].split(",")
rng = np.random.default_rng(0)
df = pl.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 10, "c": rng.exponential(size=n),
                   "sex": rng.choice(["f", "m"], n), "region": rng.choice(["n", "s", "e", "w"], n)})
stack, comp = [], []


class CPU(event.Listener):
    """Exclusive CPU seconds per compilation (the recorder's stamps are wall time)."""
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        t0, inner = stack.pop(); d = ev.data["dispatcher"]; ts = time.process_time()
        comp.append((d.py_func.__qualname__, str(ev.data["args"])[:70], ts - t0 - inner, d, ev.data["args"]))
        if stack:
            stack[-1][1] += ts - t0


with event.install_listener("numba:compile", CPU()):
    t = time.process_time(); df.sdc.mdav(3, cols); print("first cpu %.2f" % (time.process_time() - t))
print(len(comp), "compilations, sum exclusive %.2f" % sum(c[2] for c in comp))
for c in sorted(comp, key=lambda c: -c[2])[:int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 20]:
    print("%.2f %s %s" % (c[2], c[0], c[1]))
if "--passes" in sys.argv:
    tot = {}
    for name, _, _, d, args in comp:
        try:
            md = d.overloads[tuple(args)].metadata
        except Exception:
            continue
        for pname, tm in md.get("pipeline_times", {}).get("nopython", {}).items():
            key = pname.split("_", 1)[1] if pname[0].isdigit() else pname
            tot[key] = tot.get(key, 0.0) + tm.init + tm.run + tm.finalize
    for k, v in sorted(tot.items(), key=lambda kv: -kv[1])[:12]:
        print("  pass %-40s %.2f" % (k, v))
if "--llvm" in sys.argv:  # run with NUMBA_LLVM_PASS_TIMINGS=1
    tot, per = {}, {}
    for name, _, _, d, args in comp:
        try:
            md = d.overloads[tuple(args)].metadata
        except Exception:
            continue
        for rec in md.get("llvm_pass_timings", []) or []:
            key = rec.name.split(" on ")[0]
            r = rec.timings.list_records()[-1]; v = r.user_time + r.system_time
            tot[key] = tot.get(key, 0.0) + v
            per[name] = per.get(name, 0.0) + v
    for k, v in sorted(tot.items(), key=lambda kv: -kv[1]):
        print("  llvm %-50s %.2f" % (k, v))
    for k, v in sorted(per.items(), key=lambda kv: -kv[1])[:8]:
        print("  llvm in %-47s %.2f" % (k, v))
if "--warm" in sys.argv:
    for m in (5000, 20000):
        d2 = pl.DataFrame({"a": rng.normal(size=m), "b": rng.normal(size=m) * 10, "c": rng.exponential(size=m),
                           "sex": rng.choice(["f", "m"], m), "region": rng.choice(["n", "s", "e", "w"], m)})
        best = 1e9
        for _ in range(5):
            t = time.process_time(); d2.sdc.mdav(3, cols); best = min(best, time.process_time() - t)
        print("warm %d rows: %.2f ms" % (m, 1000 * best))
