"""Independent reference for the paper-000 free-play model (models/seed0/two_mass_freeplay.nsd
with Q1 = 0.1, Q2 = 0, Omega = 1.3, rest initial state): SciPy's DOP853 at rtol = atol = 1e-13,
restarted at every gap event located by SciPy's own event finder (refined with brentq on the
dense output to machine precision). Prints x1, x2 at t = 50 and 100 and the number of mode
changes up to t = 50. Run with bench/.venv/bin/python bench/reference_freeplay.py; not a test
dependency — the numbers it prints are stored in tests/suite/p000_simulate.rs."""
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

m, c, k, mu = 1.0, 0.02, 1.0, 0.1
kd, cd, mud = 0.5, 0.01, 0.05
kp, a = 10.0, 0.05
Q1, Q2, Om = 0.1, 0.0, 1.3


def rhs(mode):
    def f(t, y):
        x1, x2, v1, v2 = y
        d = x2 - x1
        fp = 0.0 if mode == 0 else (kp * (x1 - a) if mode == 1 else kp * (x1 + a))
        a1 = (Q1 * np.cos(Om * t) - c * v1 - k * x1 - mu * x1**3 + kd * d + mud * d**3 + cd * (v2 - v1) - fp) / m
        a2 = (Q2 * np.cos(Om * t) - c * v2 - k * x2 - mu * x2**3 - kd * d - mud * d**3 - cd * (v2 - v1)) / m
        return [v1, v2, a1, a2]
    return f


def events(mode):
    if mode == 0:
        up = lambda t, y: y[0] - a
        up.terminal, up.direction = True, 1
        dn = lambda t, y: y[0] + a
        dn.terminal, dn.direction = True, -1
        return [up, dn], [1, 2]
    if mode == 1:
        e = lambda t, y: y[0] - a
        e.terminal, e.direction = True, -1
        return [e], [0]
    e = lambda t, y: y[0] + a
    e.terminal, e.direction = True, 1
    return [e], [0]


def run(t_end, tol, samples):
    t, y, mode, count, out = 0.0, np.zeros(4), 0, 0, {}
    while t < t_end:
        evs, targets = events(mode)
        sol = solve_ivp(rhs(mode), (t, t_end), y, method="DOP853", rtol=tol, atol=tol, events=evs, dense_output=True)
        for s in samples:
            if t <= s <= sol.t[-1] and s not in out:
                out[s] = sol.sol(s)
        if sol.status == 1:
            which = next(i for i, te in enumerate(sol.t_events) if len(te))
            te = sol.t_events[which][0]
            g = lambda s: evs[which](s, sol.sol(s))
            lo = max(t, te - 1e-6)
            if g(lo) * g(min(te + 1e-6, sol.t[-1])) < 0:
                te = brentq(g, lo, min(te + 1e-6, sol.t[-1]), xtol=1e-16, rtol=1e-15)
            y, t = sol.sol(te), te
            mode = targets[which]
            count += 1 if te <= 50 else 0
        else:
            t, y = sol.t[-1], sol.y[:, -1]
    return out, count


out, count = run(100.0, 1e-13, [50.0, 100.0])
print("rtol=atol=1e-13: x(50) =", repr(out[50.0][0]), repr(out[50.0][1]))
print("                 x(100) =", repr(out[100.0][0]), repr(out[100.0][1]))
print("events to t=50:", count)
_, count9 = run(50.0, 1e-9, [])
print("events to t=50 at 1e-9:", count9)
