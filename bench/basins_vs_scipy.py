"""Issue 17's side-by-side: nsd's basin map of the paper-000 free-play model against a
brute-force SciPy script on a 50 x 50 sub-grid of the seed's map at Omega = 1.2.

The window: m1 = LO..LO+0.49 and v.m1 = LO..LO+0.49 by 0.01 (50 x 50 cells of the 201 x 201
map `m1 = -1..1 by 0.01, v.m1 = -1..1 by 0.01` of models/seed0/two_mass_freeplay_basins.nsd),
x2 = v2 = 0, each cell started at t = 0 (forcing phase 0), transient TRANSIENT forcing periods
at most for both tools, recurrence box / capture radius `cell = 0.01` (the full map's default,
span / 200, fixed so the sub-grid keeps it), rtol = atol = 1e-9.

SciPy: solve_ivp DOP853 one forcing period at a time with terminal `events` on x1 = +-a
(each gap switch located and the integration restarted in the new mode, as in
bench/freeplay_vs_scipy.py); a cell takes attractor k once its stroboscopic point lies within
`cell` (inf-norm) of one of k's stroboscopic points for 2 periods in a row (nsd's capture
rule, without its box recurrence), else 0 after TRANSIENT periods. Attractor k's points are
SciPy's own: its representative state from nsd's attractors.csv integrated `period` periods.
nsd: `nsd run` of the same window (a generated .nsd importing the seed model), wall from
meta.json (`wall_s`) and of the process. Both use 2 processes/threads.

Run after `cargo build --release`, from the repository root:
    /work/venv-scipy/bin/python bench/basins_vs_scipy.py            # (any venv with SciPy)
Options: --lo 0.5 (window corner), --transient 600, --procs 2."""
import argparse
import csv
import json
import math
import multiprocessing
import os
import subprocess
import tempfile
import time

import numpy as np
from scipy.integrate import solve_ivp

m, c, k, mu = 1.0, 0.02, 1.0, 0.1
kd, cd, mud = 0.5, 0.01, 0.05
kp, a = 10.0, 0.05
Q1, Q2, OM = 0.1, 0.0, 1.2
T = 2.0 * math.pi / OM
TOL = 1e-9
CELL = 0.01
HITS = 2


def rhs(mode):
    """The vector field in gap mode 0 (open), 1 (x1 > a) or 2 (x1 < -a) (paper 000, eq. 1)."""
    def f(t, y):
        x1, x2, v1, v2 = y
        fp = 0.0 if mode == 0 else (kp * (x1 - a) if mode == 1 else kp * (x1 + a))
        d = x2 - x1
        q = math.cos(OM * t)
        a1 = (Q1 * q - c * v1 - k * x1 - mu * x1**3 + kd * d + mud * d**3 + cd * (v2 - v1) - fp) / m
        a2 = (Q2 * q - c * v2 - k * x2 - mu * x2**3 - kd * d - mud * d**3 - cd * (v2 - v1)) / m
        return [v1, v2, a1, a2]
    return f


def gap_events(mode):
    """Terminal events leaving `mode`, with the mode each one enters."""
    if mode == 0:
        up = lambda t, y: y[0] - a; up.terminal, up.direction = True, 1
        dn = lambda t, y: y[0] + a; dn.terminal, dn.direction = True, -1
        return [up, dn], [1, 2]
    e = (lambda t, y: y[0] - a) if mode == 1 else (lambda t, y: y[0] + a)
    e.terminal, e.direction = True, (-1 if mode == 1 else 1)
    return [e], [0]


def mode_of(x1):
    return 1 if x1 > a else (2 if x1 < -a else 0)


def period(t0, y, mode):
    """One forcing period from t0 with every gap switch located: state and mode at t0 + T."""
    t1 = t0 + T
    t = t0
    while True:
        evs, targets = gap_events(mode)
        sol = solve_ivp(rhs(mode), (t, t1), y, method="DOP853", rtol=TOL, atol=TOL, events=evs)
        if sol.status != 1:
            return sol.y[:, -1], mode
        which = next(i for i, te in enumerate(sol.t_events) if len(te))
        t, y, mode = sol.t_events[which][0], sol.y_events[which][0], targets[which]


def cycle_points(state, p):
    """An attractor's p stroboscopic points from its representative state (phase 0)."""
    y, mode, pts = np.array(state), mode_of(state[0]), []
    for n in range(p):
        pts.append(y)
        y, mode = period(n * T, y, mode)
    return np.array(pts)


ATTRACTORS = []  # (id, points) set in each worker


def init(attractors):
    global ATTRACTORS
    ATTRACTORS = attractors


def classify(start, transient):
    """The attractor whose points the motion from `start` stays near for HITS periods."""
    y, mode = np.array(start), mode_of(start[0])
    run_id, run = 0, 0
    for n in range(transient):
        y, mode = period(n * T, y, mode)
        hit = next((i for i, pts in ATTRACTORS if np.min(np.max(np.abs(pts - y), axis=1)) <= CELL), 0)
        run = run + 1 if hit and hit == run_id else (1 if hit else 0)
        run_id = hit
        if run >= HITS:
            return hit, n + 1
    return 0, transient


def classify_star(args):
    return classify(*args)


def nsd_map(lo, transient, out):
    """nsd's map of the window; its rows, attractors, and wall times (meta.json, process)."""
    src = os.path.join(out, "window.nsd")
    hi = round(lo + 0.49, 2)
    with open(src, "w") as f:
        f.write('import "%s/models/seed0/two_mass_freeplay.nsd"\n' % os.getcwd())
        f.write("basins two_mass_freeplay(Omega = 1.2) as window {\n")
        f.write(f"  grid = {{ m1 = {lo}..{hi} by 0.01, v.m1 = {lo}..{hi} by 0.01 }}\n")
        f.write(f"  transient = {transient}\n  cell = {CELL}\n  rtol = {TOL}\n  atol = {TOL}\n}}\n")
    env = dict(os.environ, RAYON_NUM_THREADS="2")
    t0 = time.perf_counter()
    subprocess.run(["target/release/nsd", "run", src, "--out", out], check=True, capture_output=True, env=env)
    wall = time.perf_counter() - t0
    meta = json.load(open(os.path.join(out, "window/meta.json")))
    rows = list(csv.reader(open(os.path.join(out, "window/data.csv"))))
    table = list(csv.reader(open(os.path.join(out, "window/attractors.csv"))))
    return rows, table, meta.get("wall_s"), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lo", type=float, default=0.5)
    ap.add_argument("--transient", type=int, default=600)
    ap.add_argument("--procs", type=int, default=2)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as out:
        rows, table, nsd_wall, nsd_proc = nsd_map(args.lo, args.transient, out)
    head, rows = rows[0], rows[1:]
    ix, iv, ia = head.index("m1.x"), head.index("v(m1.x)"), head.index("attractor")
    starts = [(float(r[ix]), 0.0, float(r[iv]), 0.0) for r in rows]
    nsd_ids = [int(float(r[ia])) for r in rows]
    th = table[0]
    ip = th.index("period")
    cols = [th.index(n) for n in ("m1.x", "m2.x", "v(m1.x)", "v(m2.x)")]
    attractors = []
    for r in table[1:]:
        y = [float(r[i]) for i in cols]
        aid, p = int(float(r[0])), int(float(r[ip]))
        attractors.append((aid, cycle_points(y, p)))
        print(f"nsd attractor {aid}: period {p}, representative (x1, x2, v1, v2) = {y}")

    t0 = time.perf_counter()
    with multiprocessing.Pool(args.procs, initializer=init, initargs=(attractors,)) as pool:
        res = pool.map(classify_star, [(s, args.transient) for s in starts], chunksize=10)
    scipy_wall = time.perf_counter() - t0

    ids = [r[0] for r in res]
    agree = sum(1 for p, q in zip(ids, nsd_ids) if p == q)
    n = len(ids)
    print(f"window m1, v.m1 = {args.lo}..{args.lo + 0.49:.2f} by 0.01 ({n} cells), Omega = {OM}, "
          f"transient {args.transient} periods, cell {CELL}, rtol = atol = {TOL}")
    for name, lab in (("nsd", nsd_ids), ("SciPy", ids)):
        counts = {i: lab.count(i) for i in sorted(set(lab))}
        print(f"{name:5s} cells per attractor: {counts}")
    print(f"SciPy periods per cell: mean {np.mean([r[1] for r in res]):.1f}, max {max(r[1] for r in res)}")
    print(f"cells agreeing with nsd's data.csv: {agree} / {n} ({100.0 * agree / n:.1f} %)")
    print(f"SciPy wall ({args.procs} processes): {scipy_wall:.1f} s")
    print(f"nsd wall (2 threads): {nsd_wall:.2f} s analysis (meta.json wall_s), {nsd_proc:.2f} s process")
    print(f"ratio SciPy / nsd: {scipy_wall / nsd_proc:.0f}x (process wall), {scipy_wall / nsd_wall:.0f}x (analysis wall)")


if __name__ == "__main__":
    main()
