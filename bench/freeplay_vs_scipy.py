"""Benchmark peer for issue 4: SciPy DOP853 on the paper-000 free-play model over
t in [0, 2000] at rtol = atol = 1e-9, (a) exact events with restart, (b) sigmoid smoothing
delta = 1500 without events. Prints wall times (median of 3) and x(50). nsd's side:
  hyperfine -N 'target/release/nsd run bench/freeplay_2000.nsd --out /tmp/nsd-bench'
Run: bench/.venv/bin/python bench/freeplay_vs_scipy.py"""
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


def exact(tol):
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
    return events


def smooth(tol):
    def S(s):
        return 2.0 / (1.0 + np.exp(-delta * s)) - 1.0
    def f(t, y):
        x1 = y[0]
        fp = 0.5 * kp * ((x1 - a) * (1 + S(x1 - a)) + (x1 + a) * (1 - S(x1 + a)))
        return accel(t, y, fp)
    solve_ivp(f, (0, T), np.zeros(4), method="DOP853", rtol=tol, atol=tol)


for name, fn in [("exact events", lambda: exact(1e-9)), ("sigmoid 1500", lambda: smooth(1e-9))]:
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = fn()
        times.append(time.perf_counter() - t0)
    print(f"scipy DOP853 {name}: median {sorted(times)[1]:.3f} s" + (f", {r} events" if r else ""))
