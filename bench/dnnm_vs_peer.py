"""Peer benchmark: nsd's damped nonlinear modes (`continue backbone`, `method = dnnm`) against
pyHarm (PyPI `pyHarm-os`, tested with 1.2.2) on a Duffing and a Jenkins SDOF (issue #15).

Run by hand from the repository root (never by the tests):

    python3 -m venv bench/.venv && bench/.venv/bin/pip install pyHarm-os numpy scipy
    NSD=target/release/nsd bench/.venv/bin/python bench/dnnm_vs_peer.py          # all cases
    NSD=target/release/nsd bench/.venv/bin/python bench/dnnm_vs_peer.py jenkins  # some cases

(`NSD` is the nsd binary; default target/release/nsd.) The nsd side is bench/dnnm_peer.nsd.

Models (both m = 1, k = 1; one DOF x):
  * duffing   tests/models/duffing.nsd: k3 = 0.1, c = 0.05, modal amplitude a = 0.01..5
  * jenkins   jenkins_damped in bench/dnnm_peer.nsd: Jenkins kt = 3, slip force Fs = 0.5, c = 0.02,
              a = 0.01..20 (stuck mode sqrt(k + kt) = 2 below a = Fs/kt = 1/6, towards sqrt(k) = 1)
each at H = 1 and H = 5, nsd's default AFT samples (next power of two >= 8H + 8) on both sides.

The peer. tmdsimpy (`VibrationSystem.epmc_res`) is not on the package index this was run against,
so pyHarm it is. pyHarm 1.2.2 has no EPMC: its nonlinear-mode analysis `nlm_backbone` is
phase resonance (force appropriation): a harmonic-1 modal force f cos(wt) on the linear mode,
the fundamental of the response held in quadrature, continued in f. So two peer columns:
  * pH-PR   pyHarm's own `nlm_backbone` (its continuation, its Newton, its AFT): the frequency
            at an amplitude and the equivalent damping from the energy balance of the forced
            periodic motion, xi_eq = f A1 / (w sum_k k^2 A_k^2) (the force's work pi f A1 per
            period against what xi dissipates, xi pi w sum_k k^2 A_k^2, m = 1). At H = 1 on an
            SDOF this system *is* the EPMC system (same cos equation; the sin equation's xi a w
            is f), so H = 1 must agree to the solvers' tolerance; at H > 1 they differ in
            formulation (EPMC's -xi M q' acts on every harmonic, the force on the first only).
  * pH-EPMC the EPMC equations (Krack 2015; paper 003 eqs. 7-9) assembled here on pyHarm's HB
            residual and Jacobian (system.Residual / system.Jacobian, its AFT elements):
            R(q, w) - xi V(w) q = 0 with V the HB operator of M d/dt taken from pyHarm itself (a
            pyHarm system with C = M, K = 0, M = 0), the sine of x's fundamental zero, and the
            amplitude fixed (below); solved by Newton. The same formulation as nsd's dNNM, so
            this column checks nsd's branch against an independent HB/AFT implementation at
            every H. Not timed (script code, not a pyHarm product).

Amplitude conventions. nsd's dNNM continues in the modal amplitude a (Q = a psi, psi
mass-normalised on its fundamental, psi_1^T M psi_1 = 1, with the sine part of the monitored
DOF's fundamental zero): for these unit-mass SDOFs a = A1 = sqrt(c1^2 + s1^2) of x. data.csv
does not carry a, but `Am` = (sqrt 2 / 2) sqrt(sum_{k=1..H} A_k^2) of x (the RMS of the
harmonics, eq. 20); at H = 1 a = sqrt(2) Am. pyHarm's `backbone_amp` is the projection of
x's fundamental on its (unit-norm, here +-1) linear mode, i.e. A1 as well. All comparisons are
made at nsd's points, matched on Am (the same definition computed from the peer's harmonics):
  * "solved": the peer's own equations solved at nsd's Am by Newton, started from the peer's
    branch interpolated in log Am (pH-PR: unknowns q, w, f with pyHarm's augmented residual
    `globalResidual` plus Am(q) = Am_nsd; pH-EPMC: q, w, xi) — no interpolation error;
  * "interp": pyHarm's `nlm_backbone` branch itself interpolated (cubic in log Am) at nsd's Am.
Only nsd points inside the peer branch's Am range are compared (nsd steps past the upper end
of `amplitude = a..b`: its last point lands at up to ~8 % beyond b).
Damping: xi [1/s] of EPMC (nsd's `xi` column) and zeta = xi / (2 w) (nsd's `zeta`); relative
differences |peer - nsd| / nsd. Also with pyHarm's AFT at 2048 samples (its Jenkins is a
sampled return-map, nsd's is integrated exactly) to separate sampling error from disagreement.

Closed forms (H = 1, a = sqrt 2 Am): Duffing w^2 = 1 + 3/4 k3 a^2 and xi = c exactly (m = 1: the
damping is mass-proportional, so xi = c cancels it and the mode is the conservative NNM at any
H: xi = c is checked at H = 5 too); Jenkins describing function w^2 = 1 + k_eq(a),
k_eq = kt (a <= Fs/kt), else (kt/pi)(th - sin(2 th)/2), cos th = 1 - 2 Fs/(kt a), and
xi = c + 4 Fs (a - Fs/kt)^+ / (pi w a^2) (the slider's dissipation per period 4 Fs (a - Fs/kt)).

Timing: whole-command wall clock, median of 5 (nsd) / 3 (pyHarm) runs:
  * nsd:    `nsd run bench/dnnm_peer.nsd --only CASE --out TMP --json` (process start to exit);
  * pyHarm: `python bench/dnnm_vs_peer.py --pyharm-only CASE` (interpreter start, imports, model
            build, `Maestro.operate()` of the nlm_backbone analysis), after one untimed warm-up
            run that fills numba's on-disk cache (the first ever run compiles for ~25 s);
and the analysis alone: nsd's summary `wall_s` against pyHarm's `operate()` (in-process,
median of 3 after a warm-up). pyHarm's continuation: its defaults (tangent predictor,
`acceptance` step rule) with df0 = the starting force, df_max = 0.05, Newton to 1e-10.

Results (2026-11-27, 2-core machine at load average ~7, nsd main @ 22306db, pyHarm-os 1.2.2;
the full output is kept in the notes as dnnm_vs_peer.log): max relative differences to nsd at
its points, (omega, xi)
  * duffing H=1: every peer column 1.1e-11, ~1e-15 (nsd's own continuation tolerance; nsd to
    the closed form 1.1e-11, 8e-16); H=5: pH-EPMC 1.1e-11, 2e-15; pH-PR 1.2e-6 in omega (the
    PR/EPMC formulation difference at H > 1); xi = c to 3e-15 on both sides.
  * jenkins H=1: pH at nsd's N = 16 samples 3.9e-3, 2.5e-2 (pyHarm's sampled Jenkins; pyHarm to
    the describing function shows the same error), at 2048 samples 1.5e-7, 1.1e-6, at 8192
    1.2e-8, 7.4e-8 (nsd to the describing function 6.5e-12, 5.6e-11: its Jenkins is exact).
    H=5: pH-EPMC 4.7e-4, 1.9e-3 at N = 64; 5.5e-7, 3.5e-5 at 2048; 3.7e-8, 4.1e-6 at 8192 (so
    pyHarm converges on nsd as its sampling is refined); pH-PR stays 2.0e-3, 5.9e-3 at any N:
    phase resonance is not the EPMC at H > 1 (friction's higher harmonics are not small).
  * "interp" (pyHarm's own coarse branch interpolated) is poor for the Jenkins damping (up to
    1.7 relative at H = 1): xi jumps from c to ~0.6 within a = 0.167..0.2 at slip onset and
    pyHarm's force continuation puts few points there; hence the "solved" rows.
  * time: whole command nsd 0.02-0.17 s, pyHarm 5-6.4 s (3.2 s of it is `import pyHarm`):
    pyHarm/nsd = 300, 200, 72, 37 (duffing H1, H5, jenkins H1, H5); analysis alone (nsd wall_s
    vs operate()) 192, 27, 11, 7, on nsd's 24/24/57/57 points against pyHarm's 19/19/38/43.
"""
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.interpolate import CubicSpline

warnings.filterwarnings("ignore")  # numba performance warnings from pyHarm's kernels
logging.disable(logging.CRITICAL)  # pyHarm's banner and per-point log
from pyHarm.Maestro import Maestro  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NSD = Path(os.environ.get("NSD", ROOT / "target" / "release" / "nsd"))
NSD_FILE = ROOT / "bench" / "dnnm_peer.nsd"
NSD_RUNS = 5
PEER_RUNS = 3
FINE_SAMPLES = int(os.environ.get("FINE_SAMPLES", 2048))  # pyHarm AFT samples for the fine rows


def default_samples(h):
    """nsd's default AFT sample count: the smallest power of two >= 8H + 8."""
    n = 1
    while n < 8 * h + 8:
        n *= 2
    return n


# ----------------------------------------------------------------------------- models
@dataclass
class Model:
    c: float
    connectors: dict
    f0: float      # pyHarm's starting modal force (the linear mode's force at a ~ 0.01)
    amp_max: float  # pyHarm stops at this A1 (nsd: `amplitude = 0.01..amp_max`)
    k3: float = 0.0
    kt: float = 0.0
    fs: float = 0.0


GROUND = {"connect": {"sdof": [0]}, "dirs": [0]}
MODELS = {
    "duffing": Model(c=0.05, k3=0.1, f0=5e-4, amp_max=5.0,
                     connectors={"k3": {"type": "CubicSpring", "k": 0.1, **GROUND}}),
    "jenkins": Model(c=0.02, kt=3.0, fs=0.5, f0=4e-4, amp_max=20.0,
                     connectors={"j": {"type": "Jenkins", "k": 3.0, "mu": 1.0, "N0": 0.5, **GROUND}}),
}
CASES = [(f"{m}_h{h}", m, h) for m in MODELS for h in (1, 5)]


def closed_form(model, a):
    """(w, xi) of the H = 1 mode at fundamental amplitude a (module docs)."""
    if model.kt == 0.0:
        return np.sqrt(1.0 + 0.75 * model.k3 * a * a), np.full_like(a, model.c)
    kt, fs = model.kt, model.fs
    slip = kt * a > fs
    th = np.arccos(np.clip(1.0 - 2.0 * fs / (kt * a), -1.0, 1.0))
    keq = np.where(slip, kt / np.pi * (th - 0.5 * np.sin(2.0 * th)), kt)
    w = np.sqrt(1.0 + keq)
    xi = model.c + np.where(slip, 4.0 * fs * (a - fs / kt), 0.0) / (np.pi * w * a * a)
    return w, xi


# ----------------------------------------------------------------------------- pyHarm side
def pyharm_input(model, h, samples, c=None, connectors=None, mass=1.0, stiffness=1.0):
    return {
        "system": {"type": "Base", "nh": h, "nti": samples},
        "substructures": {"sdof": {"type": "substructure", "ndofs": 1, "matrix": {
            "M": np.array([[mass]]), "C": np.array([[model.c if c is None else c]]),
            "K": np.array([[stiffness]])}}},
        "connectors": model.connectors if connectors is None else connectors,
        "analysis": {"bb": {
            "study": "nlm_backbone", "amp_min": model.f0, "amp_max": model.amp_max,
            "df0": model.f0, "df_max": 0.05, "max_steps": 5000, "verbose": False,
            "solver": "NewtonRaphson",
            "solver_options": {"tol_residual": 1e-10, "tol_delta_x": 1e-10, "max_iter": 30}}},
    }


def run_pyharm(model, h, samples):
    """pyHarm's nlm_backbone: (Maestro, accepted solutions, rejected count, operate() wall s)."""
    m = Maestro(pyharm_input(model, h, samples))
    t0 = time.perf_counter()
    m.operate()
    wall = time.perf_counter() - t0
    sols = m.nls["bb"].SolList
    acc = [s for s in sols if s.flag_accepted]
    return m, acc, len(sols) - len(acc), wall


def index_of(system, h):
    """Indices of x's c_0..c_H and s_1..s_H in pyHarm's solver vector."""
    edf = system.expl_dofs
    idx = {(r.harm, r.cs): i for i, r in edf.iterrows()}
    return (np.array([idx[(k, "c")] for k in range(h + 1)]),
            np.array([idx[(k, "s")] for k in range(1, h + 1)]))


class Harm:
    """Harmonics of x from a pyHarm state; Am and A1 and their gradients."""

    def __init__(self, system, h):
        self.h, (self.ic, self.js) = h, index_of(system, h)
        self.n = system.ndofs_solve

    def coeffs(self, q):
        return q[self.ic[1:]], q[self.js]

    def am(self, q):
        c, s = self.coeffs(q)
        return np.sqrt(0.5 * (c @ c + s @ s))

    def am_grad(self, q):
        g = np.zeros(self.n)
        a = self.am(q)
        g[self.ic[1:]] = 0.5 * q[self.ic[1:]] / a
        g[self.js] = 0.5 * q[self.js] / a
        return g

    def a1(self, q):
        return np.hypot(q[self.ic[1]], q[self.js[0]])

    def energy(self, q):
        """sum_k k^2 A_k^2 (m = 1)."""
        c, s = self.coeffs(q)
        k = np.arange(1, self.h + 1)
        return float(np.sum(k * k * (c * c + s * s)))


def newton(fun, z, tol=1e-11, iters=60):
    """Plain Newton on fun(z) -> (r, J); None unless |r| < tol and the step is tiny."""
    for _ in range(iters):
        r, J = fun(z)
        try:
            dz = np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            dz = np.linalg.lstsq(J, r, rcond=None)[0]
        z = z - dz
        if np.linalg.norm(dz) < 1e-12 * max(1.0, np.linalg.norm(z)):
            r, _ = fun(z)
            return z if np.linalg.norm(r) < tol else None
    return None


class PeerSolver:
    """pyHarm's equations at fixed Am: phase resonance (its nlm_backbone residual) and EPMC."""

    def __init__(self, model, h, samples):
        self.maestro = Maestro(pyharm_input(model, h, samples))
        self.nl = self.maestro.nls["bb"]
        self.nl.initialise()
        self.system = self.maestro.system
        self.hx = Harm(self.system, h)
        # V(w): the HB operator of M d/dt, from a pyHarm system with C = M (= 1), K = M = 0.
        self.vsys = Maestro(pyharm_input(model, h, samples, c=1.0, connectors={}, mass=0.0,
                                         stiffness=0.0)).system

    def velocity(self, w):
        return self.vsys.Jacobian(np.append(np.zeros(self.hx.n), w))[0]

    def phase_resonance(self, am, x, f):
        """Unknowns [q, w, f]: pyHarm's augmented residual at force f, plus Am(q) = am."""
        nl, n = self.nl, self.hx.n

        def fun(z):
            xs, fz = z[:-1], z[-1]
            r = nl._residual_at_force(xs, fz)
            J = nl.globalJacobian(xs, sol=None)
            dfz = np.append(nl.force_gen, 0.0)
            row = np.append(np.append(self.hx.am_grad(xs[:n]), 0.0), 0.0)
            return (np.append(r, self.hx.am(xs[:n]) - am),
                    np.vstack([np.column_stack([J, dfz]), row]))

        z = newton(fun, np.append(x, f))
        if z is None:
            return None
        q, w, f = z[:n], z[n], z[n + 1]
        return w, f * self.hx.a1(q) / (w * self.hx.energy(q))

    def epmc(self, am, x, xi):
        """Unknowns [q, w, xi]: R(q, w) - xi V(w) q = 0, s1 = 0, Am(q) = am."""
        n, sysm = self.hx.n, self.system

        def fun(z):
            q, w, xi = z[:n], z[n], z[n + 1]
            V = self.velocity(w)
            r = sysm.Residual(np.append(q, w)) - xi * V @ q
            jx, jw = sysm.Jacobian(np.append(q, w))
            J = np.zeros((n + 2, n + 2))
            J[:n, :n] = jx - xi * V
            J[:n, n] = np.ravel(jw) - xi * V @ q / w  # V is linear in w
            J[:n, n + 1] = -V @ q
            J[n, self.hx.js[0]] = 1.0
            J[n + 1, :n] = self.hx.am_grad(q)
            return np.concatenate([r, [q[self.hx.js[0]], self.hx.am(q) - am]]), J

        z = newton(fun, np.append(x, xi))
        return None if z is None else (z[n], z[n + 1])


def rotate(hx, x):
    """Shift time so that x's fundamental is a pure cosine (the EPMC phase condition):
    harmonic k is rotated by k phi with phi the fundamental's phase."""
    x = x.copy()
    phi = np.arctan2(x[hx.js[0]], x[hx.ic[1]])
    for k in range(1, hx.h + 1):
        c, s = x[hx.ic[k]], x[hx.js[k - 1]]
        x[hx.ic[k]] = c * np.cos(k * phi) + s * np.sin(k * phi)
        x[hx.js[k - 1]] = -c * np.sin(k * phi) + s * np.cos(k * phi)
    return x


# ----------------------------------------------------------------------------- nsd side
def run_nsd(name):
    """NSD_RUNS runs of `nsd run --only name`: (data.csv columns, summary, command walls, wall_s)."""
    walls, inner = [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(NSD_RUNS):
            t0 = time.perf_counter()
            res = subprocess.run([str(NSD), "run", str(NSD_FILE), "--only", name, "--json",
                                  "--out", out], cwd=ROOT, capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
            if res.returncode != 0:
                sys.exit(f"nsd failed ({res.returncode}):\n{res.stderr}")
            summary = json.loads(res.stdout.splitlines()[0])["summary"]
            inner.append(summary["wall_s"])
        lines = (Path(out) / name / "data.csv").read_text().splitlines()
    head = [c.split(" ")[0].split("(")[0] for c in lines[0].split(",")]
    data = np.array([[float(v) for v in l.split(",")] for l in lines[1:] if l.strip()])
    cols = {c: data[:, j] for j, c in enumerate(head)}
    return cols, summary, walls, inner


def peer_command_walls(name):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--pyharm-only", name]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)  # warm-up: numba cache
    walls = []
    for _ in range(PEER_RUNS):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
        walls.append(time.perf_counter() - t0)
    return walls


def pyharm_only(name):
    _, m, h = next(c for c in CASES if c[0] == name)
    run_pyharm(MODELS[m], h, default_samples(h))


# ----------------------------------------------------------------------------- comparison
def rel(a, b):
    return np.abs(a - b) / np.abs(b)


def fmt(x):
    return "   -    " if x is None or not np.isfinite(x) else f"{x:8.1e}"


def compare(name, mname, h):
    model = MODELS[mname]
    samples = default_samples(h)
    nsd, summary, nsd_walls, nsd_inner = run_nsd(name)
    am_n, w_n, xi_n, zeta_n = nsd["Am"], nsd["Omega"], nsd["xi"], nsd["zeta"]

    run_pyharm(model, h, samples)  # warm-up (numba JIT)
    runs = [run_pyharm(model, h, samples) for _ in range(PEER_RUNS)]
    maestro, acc, rejected, _ = runs[-1]
    ph_inner = [r[3] for r in runs]
    hx = Harm(maestro.system, h)
    X = np.array([s.x for s in acc])
    f_ph = np.array([s.force_scale for s in acc])
    am_ph = np.array([hx.am(x[:-1]) for x in X])
    w_ph = X[:, -1]
    xi_ph = np.array([f * hx.a1(x[:-1]) / (x[-1] * hx.energy(x[:-1])) for f, x in zip(f_ph, X)])
    order = np.argsort(am_ph)
    am_ph, w_ph, xi_ph, X, f_ph = am_ph[order], w_ph[order], xi_ph[order], X[order], f_ph[order]
    keep = np.concatenate([[True], np.diff(am_ph) > 0])
    am_ph, w_ph, xi_ph, X, f_ph = am_ph[keep], w_ph[keep], xi_ph[keep], X[keep], f_ph[keep]

    inside = (am_n >= am_ph[0]) & (am_n <= am_ph[-1])
    amc = am_n[inside]
    la = np.log(am_ph)
    interp_w = CubicSpline(la, w_ph)(np.log(amc))
    interp_xi = CubicSpline(la, xi_ph)(np.log(amc))

    def guess(am):
        t = np.log(am)
        return np.array([np.interp(t, la, X[:, j]) for j in range(X.shape[1])]), np.interp(t, la, f_ph)

    results = {}
    for label, ns in (("", samples), (f"@{FINE_SAMPLES}", FINE_SAMPLES)):
        solver = PeerSolver(model, h, ns)
        pr, ep = [], []
        for am in amc:
            x, f = guess(am)
            pr.append(solver.phase_resonance(am, x, f) or (np.nan, np.nan))
            xr = rotate(hx, x)
            ep.append(solver.epmc(am, xr, f / (x[-1] * hx.a1(x[:-1]))) or (np.nan, np.nan))
        results["PR" + label], results["EPMC" + label] = np.array(pr), np.array(ep)

    wn, xn, zn = w_n[inside], xi_n[inside], zeta_n[inside]
    rows = [("pH-PR interp", interp_w, interp_xi)]
    rows += [(f"pH-{k} solved", v[:, 0], v[:, 1]) for k, v in results.items()]
    table = []
    for label, w, xi in rows:
        ok = np.isfinite(w) & np.isfinite(xi)
        zeta = xi / (2 * w)
        table.append((label, int((~ok).sum()), rel(w[ok], wn[ok]).max(), rel(xi[ok], xn[ok]).max(),
                      rel(zeta[ok], zn[ok]).max()))
    cf = {}
    if h == 1:
        wc, xc = closed_form(model, np.sqrt(2.0) * am_n)
        cf["nsd"] = (rel(w_n, wc).max(), rel(xi_n, xc).max())
        for k in ("PR", "EPMC", f"PR@{FINE_SAMPLES}", f"EPMC@{FINE_SAMPLES}"):
            v = results[k]
            ok = np.isfinite(v[:, 0])
            wc, xc = closed_form(model, np.sqrt(2.0) * amc[ok])
            cf["pH-" + k] = (rel(v[ok, 0], wc).max(), rel(v[ok, 1], xc).max())
    elif model.kt == 0.0:
        cf["nsd xi = c"] = (None, rel(xi_n, model.c).max())
        v = results["EPMC"]
        ok = np.isfinite(v[:, 1])
        cf["pH-EPMC xi = c"] = (None, rel(v[ok, 1], model.c).max())

    walls_ph = peer_command_walls(name)
    return dict(name=name, h=h, samples=samples, n_nsd=len(am_n), n_cmp=int(inside.sum()),
                am_range=(am_n[inside].min(), am_n[inside].max()), n_ph=len(acc), rej=rejected,
                table=table, cf=cf, nsd_wall=statistics.median(nsd_walls),
                nsd_inner=statistics.median(nsd_inner), ph_wall=statistics.median(walls_ph),
                ph_inner=statistics.median(ph_inner), w_span=(w_n.min(), w_n.max()),
                stopped=summary.get("stopped"))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--pyharm-only":
        pyharm_only(sys.argv[2])
        return
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    if not NSD.exists():
        sys.exit(f"no nsd binary at {NSD} (set NSD=...)")
    out = []
    for name, m, h in CASES:
        if only in name:
            print(f"{name}: nsd x{NSD_RUNS}, pyHarm x{PEER_RUNS + 1} + matched solves ...", flush=True)
            out.append(compare(name, m, h))

    print("\nAgreement at nsd's points (matched on Am; max relative difference to nsd; "
          "'fail' = matched solves that did not converge)")
    print(f"{'case':<11} {'peer':<20} {'fail':>4} {'omega':>8} {'xi':>8} {'zeta':>8}")
    for r in out:
        print(f"{r['name']:<11} ({r['n_cmp']} of {r['n_nsd']} nsd points, Am {r['am_range'][0]:.3g}.."
              f"{r['am_range'][1]:.3g}, omega {r['w_span'][0]:.4f}..{r['w_span'][1]:.4f}, "
              f"N = {r['samples']})")
        for label, fails, dw, dxi, dz in r["table"]:
            print(f"{'':<11} {label:<20} {fails:>4} {fmt(dw)} {fmt(dxi)} {fmt(dz)}")
    print("\nClosed forms (max relative difference: omega, xi); H = 1: Duffing w^2 = 1 + 3/4 k3 a^2, "
          "xi = c; Jenkins describing function; H = 5 Duffing: xi = c")
    for r in out:
        for k, (dw, dxi) in r["cf"].items():
            print(f"{r['name']:<11} {k:<20} {fmt(dw)} {fmt(dxi)}")
    print("\nTiming (medians; command: process start to exit, nsd x5, pyHarm x3 after a warm-up; "
          "analysis: nsd summary.wall_s, pyHarm Maestro.operate())")
    print(f"{'case':<11} {'nsd pts':>7} {'pH pts':>6} {'pH rej':>6} | {'nsd cmd s':>9} {'pH cmd s':>8} "
          f"{'ratio':>7} | {'nsd an. s':>9} {'pH an. s':>8} {'ratio':>7}")
    for r in out:
        print(f"{r['name']:<11} {r['n_nsd']:>7} {r['n_ph']:>6} {r['rej']:>6} | {r['nsd_wall']:>9.3f} "
              f"{r['ph_wall']:>8.3f} {r['ph_wall'] / r['nsd_wall']:>7.1f} | {r['nsd_inner']:>9.4f} "
              f"{r['ph_inner']:>8.3f} {r['ph_inner'] / r['nsd_inner']:>7.0f}")


if __name__ == "__main__":
    main()
