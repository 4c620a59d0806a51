"""Benchmark for issue 4: nsd against SciPy DOP853 on the paper-000 free-play model over
t in [0, 2000] at rtol = atol = 1e-9, (a) exact events with restart, (b) sigmoid smoothing
delta = 1500 without events. Prints SciPy's wall times (median of 3), nsd's integration
wall times (median of 11 runs of bench/freeplay_2000.nsd, `wall_s` in meta.json), the
ratios, and both codes' error at t = 50 against the tight reference of
tests/suite/p000_simulate.rs (REF_50), with the events counted to t = 50.
Run after `cargo build --release`: bench/.venv/bin/python bench/freeplay_vs_scipy.py"""
import json
import subprocess
import tempfile
import time
import numpy as np
from scipy.integrate import solve_ivp

m, c, k, mu = 1.0, 0.02, 1.0, 0.1
kd, cd, mud = 0.5, 0.01, 0.05
kp, a, delta = 10.0, 0.05, 1500.0
Q1, Q2, Om = 0.1, 0.0, 1.3
T = 2000.0


def accel(t, y, fp):
    x1, x2, v1, v2 = y
    d = x2 - x1
    a1 = (Q1 * np.cos(Om * t) - c * v1 - k * x1 - mu * x1**3 + kd * d + mud * d**3 + cd * (v2 - v1) - fp) / m
    a2 = (Q2 * np.cos(Om * t) - c * v2 - k * x2 - mu * x2**3 - kd * d - mud * d**3 - cd * (v2 - v1)) / m
    return [v1, v2, a1, a2]


REF_50 = (-0.06713147301535471, 0.046901155959579346)


def exact(tol, T=T):
    t, y, mode, events = 0.0, np.zeros(4), 0, 0
    while t < T:
        def f(t, y, mode=mode):
            x1 = y[0]
            fp = 0.0 if mode == 0 else (kp * (x1 - a) if mode == 1 else kp * (x1 + a))
            return accel(t, y, fp)
        if mode == 0:
            up = lambda t, y: y[0] - a; up.terminal, up.direction = True, 1
            dn = lambda t, y: y[0] + a; dn.terminal, dn.direction = True, -1
            evs, targets = [up, dn], [1, 2]
        elif mode == 1:
            e = lambda t, y: y[0] - a; e.terminal, e.direction = True, -1
            evs, targets = [e], [0]
        else:
            e = lambda t, y: y[0] + a; e.terminal, e.direction = True, 1
            evs, targets = [e], [0]
        sol = solve_ivp(f, (t, T), y, method="DOP853", rtol=tol, atol=tol, events=evs)
        if sol.status == 1:
            which = next(i for i, te in enumerate(sol.t_events) if len(te))
            t, y, mode = sol.t_events[which][0], sol.y_events[which][0], targets[which]
            events += 1
        else:
            t, y = sol.t[-1], sol.y[:, -1]
    return events, y


def smooth(tol):
    def S(s):
        return 2.0 / (1.0 + np.exp(-delta * s)) - 1.0
    def f(t, y):
        x1 = y[0]
        fp = 0.5 * kp * ((x1 - a) * (1 + S(x1 - a)) + (x1 + a) * (1 - S(x1 + a)))
        return accel(t, y, fp)
    solve_ivp(f, (0, T), np.zeros(4), method="DOP853", rtol=tol, atol=tol)


def nsd_wall_times(runs=11):
    """Median integration wall time of each analysis of bench/freeplay_2000.nsd."""
    walls = {"exact": [], "sigmoid": []}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(runs):
            subprocess.run(["target/release/nsd", "run", "bench/freeplay_2000.nsd", "--out", out],
                           check=True, capture_output=True)
            for name in walls:
                walls[name].append(json.load(open(f"{out}/{name}/meta.json"))["wall_s"])
    return {name: sorted(w)[runs // 2] for name, w in walls.items()}


def nsd_at_50():
    """x1, x2 at t = 50 and the events to t = 50 at rtol = atol = 1e-9."""
    with tempfile.TemporaryDirectory() as out:
        src = f"{out}/at50.nsd"
        with open(src, "w") as f:
            f.write('import "%s/models/seed0/two_mass_freeplay.nsd"\n' % subprocess.os.getcwd())
            f.write("simulate two_mass_freeplay as at50 { t = 0..50, rtol = 1e-9, atol = 1e-9, output = at(50) }\n")
        subprocess.run(["target/release/nsd", "run", src, "--out", out], check=True, capture_output=True)
        row = open(f"{out}/at50/data.csv").read().splitlines()[1].split(",")
        events = json.load(open(f"{out}/at50/meta.json"))["summary"]["events"]
    return (float(row[1]), float(row[2])), events


scipy = {}
for name, fn in [("exact", lambda: exact(1e-9)), ("sigmoid", lambda: smooth(1e-9))]:
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    scipy[name] = sorted(times)[1]
nsd = nsd_wall_times()
for name in scipy:
    print(f"{name:8s} SciPy {scipy[name]:.3f} s   nsd {1e3 * nsd[name]:.1f} ms   ratio {scipy[name] / nsd[name]:.0f}x")
events, y = exact(1e-9, T=50.0)
err_scipy = max(abs(y[0] - REF_50[0]), abs(y[1] - REF_50[1]))
(x1, x2), nsd_events = nsd_at_50()
err_nsd = max(abs(x1 - REF_50[0]), abs(x2 - REF_50[1]))
print(f"t = 50 at 1e-9: SciPy error {err_scipy:.1e} ({events} events), nsd error {err_nsd:.1e} ({nsd_events} events)")
