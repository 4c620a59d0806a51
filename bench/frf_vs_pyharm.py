"""Peer benchmark: nsd `continue frf` against pyHarm (PyPI `pyHarm-os`) on the same models.

Run from the repository root after a release build:

    bench/.venv/bin/python bench/frf_vs_pyharm.py            # all cases
    bench/.venv/bin/python bench/frf_vs_pyharm.py duffing    # only cases whose name contains 'duffing'

Cases (nsd side: bench/frf_peer.nsd, `stability = false`):
  * duffing   tests/models/duffing.nsd: m = 1, c = 0.05, k = 1, k3 = 0.1, F = 0.1, Omega in 0.5..2
  * jenkins   jenkins_forced in bench/frf_peer.nsd (tests/models/jenkins_sdof.nsd + c = 0.02 and
              F = 0.3 cos(Omega t)): m = 1, k = 1, Jenkins kt = 3 / slip force 0.5, Omega in 0.5..3
  * beam      models/seed3/cantilever_pad.nsd at 30 N, Omega in 1250..1800, tip y monitored: the
              20-element Euler-Bernoulli cantilever (consistent mass, built here in numpy and checked
              against `nsd check`'s natural frequencies), C = 1e-6 K, and the pad at node 14, whose
              normal load is held, as a pyHarm `Jenkins` element (kt = 2e8, limit mu N0 = 12 N).
each with H = 1, 3, 7 harmonics and nsd's default number of time samples (next power of two
>= 8H + 8) for pyHarm's AFT too.

pyHarm settings (same algorithm family as nsd): tangent predictor, pseudo-arclength corrector,
Newton-Raphson, its `acceptance` step rule (halve on failure, double after 5 successes); the
equations are non-dimensionalised (pyHarm `adim`) with lc = the order of the largest unknown at the
peak (1, 0.3, 0.5 for the Duffing, Jenkins, beam cases) and
wc = the width of the Omega range, so that the arclength steps are measured like nsd's (scaled
unknowns, Omega by the range width): ds0 = 0.01, ds_max = 0.05, ds_min = 1e-8 (nsd's step,
max_step, min_step defaults). Newton stops when the residual is below 1e-6 of the excitation
and the correction below 1e-9 of the scaled unknowns (nsd's criteria).

Known limitation (beam): pyHarm's Jenkins is a sampled (AFT) predictor-corrector; with kt = 2e8 the
stick intervals are ~1e-7 m wide against ~0.1 m amplitudes, so its residual is nearly discontinuous
in the harmonics, Newton keeps failing near the resonance and the step collapses (a full run over
1250..1800 did not finish: ~12 min to crawl just past the peak). The beam curves are therefore cut
by pyHarm's stopper timeout (Model.time_cap_s = 180 s); the tables say how far they got, and the
agreement is computed on the part covered. (pyHarm's DLFTFriction, the regularised alternative, is
a rigid-stick law and was slower still in a trial; not used.)

Timing: pyHarm = wall clock of `Maestro.operate()` (the branch; the model build is not counted),
median of 3 runs when a run takes under 20 s, else 1 run, after an untimed warm-up (numba JIT);
nsd = `summary.wall_s` (the branch), median of 5 runs of bench/frf_peer.nsd.

Agreement ("same FRF to plotting accuracy"), on the first-harmonic amplitude A1 of the
monitored DOF (nsd: the `A1(...)` column of data.csv; pyHarm: sqrt(c1^2 + s1^2)):
  * peak: Omega and amplitude of the largest max|x| over the period (vertex of the parabola
    through the largest point and its neighbours, the same rule on both sides; nsd's value is
    its `summary.peak`), relative differences;
  * A1 rel: on the first and last Omega-monotone pieces of the branch (the single-valued, stable
    parts: before the first and after the last fold), max and median of |A1_pH - A1_nsd| / A1_nsd,
    see the next item for how pyHarm's A1 is obtained at nsd's frequencies;
  * pyHarm solved at nsd's frequencies: A1 relative differences with pyHarm's own HB equations
    solved by Newton at each nsd Omega (start: pyHarm's branch interpolated), with pyHarm's AFT at
    the same N and at N = 2048 (which separates pyHarm's sampling error from a real difference;
    nsd's friction elements are integrated exactly, not sampled);
  * curve dist: the largest distance of nsd's points (Omega, A1) to pyHarm's polyline, in
    units of the plot (Omega by the range width, A1 by the peak A1), over the whole branch
    (folds and unstable middle branch included).
"""
import json
import logging
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore")  # numba performance warnings from pyHarm's kernels
logging.disable(logging.CRITICAL)  # pyHarm's banner and per-point log
from pyHarm.Maestro import Maestro  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NSD = ROOT / "target" / "release" / "nsd"
NSD_FILE = ROOT / "bench" / "frf_peer.nsd"
NSD_RUNS = 5
SLOW_RUN_S = 20.0


def default_samples(h):
    """nsd's default AFT sample count: the smallest power of two >= 8H + 8."""
    n = 1
    while n < 8 * h + 8:
        n *= 2
    return n


# ----------------------------------------------------------------------------- models
@dataclass
class Model:
    """A pyHarm system (without analysis) plus what the comparison needs to know about it."""
    substructures: dict
    connectors: dict
    monitor: tuple          # (substructure, node, dof number) of the monitored DOF
    force: float            # excitation amplitude (Newton's residual scale)
    lc: float               # characteristic length for pyHarm's adim (order of the peak response)
    omega: tuple            # (a, b) range followed, from a
    time_cap_s: int = 0     # pyHarm stopper timeout (0: none)


def ground_link(sub, node, **kw):
    """A pyHarm node-to-ground connector on direction 0 of `node` of `sub`."""
    return {"connect": {sub: [node]}, "dirs": [0], **kw}


def linear_sdof(m, c, k):
    return {"sdof": {"type": "substructure", "ndofs": 1,
                     "matrix": {"M": np.array([[m]]), "C": np.array([[c]]), "K": np.array([[k]])}}}


def duffing_model():
    """tests/models/duffing.nsd, model `duffing` (F = 0.1)."""
    f = 0.1
    return Model(
        substructures=linear_sdof(m=1.0, c=0.05, k=1.0),
        connectors={
            "k3": {"type": "CubicSpring", "k": 0.1, **ground_link("sdof", 0)},
            "load": {"type": "CosinusForcing", "amp": f, **ground_link("sdof", 0)},
        },
        monitor=("sdof", 0, 0), force=f, lc=1.0, omega=(0.5, 2.0))


def jenkins_model():
    """jenkins_forced of bench/frf_peer.nsd: pyHarm's Jenkins limit is mu*N0 (mu = 1, N0 = Fs)."""
    f, fs = 0.3, 0.5
    return Model(
        substructures=linear_sdof(m=1.0, c=0.02, k=1.0),
        connectors={
            "jenkins": {"type": "Jenkins", "k": 3.0, "mu": 1.0, "N0": fs, **ground_link("sdof", 0)},
            "load": {"type": "CosinusForcing", "amp": f, **ground_link("sdof", 0)},
        },
        monitor=("sdof", 0, 0), force=f, lc=0.3, omega=(0.5, 3.0))


def cantilever_matrices(E=210e9, rho=7830.0, b=0.01, h=0.01, L=0.2, n=20):
    """Euler-Bernoulli cantilever, consistent mass; DOFs (y, rz) of nodes 1..n (node 0 clamped)."""
    le, EI, mA = L / n, E * b * h**3 / 12, rho * b * h
    ke = EI / le**3 * np.array([[12, 6 * le, -12, 6 * le],
                                [6 * le, 4 * le**2, -6 * le, 2 * le**2],
                                [-12, -6 * le, 12, -6 * le],
                                [6 * le, 2 * le**2, -6 * le, 4 * le**2]])
    me = mA * le / 420 * np.array([[156, 22 * le, 54, -13 * le],
                                   [22 * le, 4 * le**2, 13 * le, -3 * le**2],
                                   [54, 13 * le, 156, -22 * le],
                                   [-13 * le, -3 * le**2, -22 * le, 4 * le**2]])
    K = np.zeros((2 * n + 2, 2 * n + 2))
    M = np.zeros_like(K)
    for e in range(n):
        s = slice(2 * e, 2 * e + 4)
        K[s, s] += ke
        M[s, s] += me
    return M[2:, 2:], K[2:, 2:]


def check_beam_frequencies(M, K):
    """Natural frequencies against `nsd check models/seed3/cantilever_pad.nsd` (contacts open)."""
    out = subprocess.run([str(NSD), "check", "models/seed3/cantilever_pad.nsd", "--json"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    ref = np.array(next(json.loads(l) for l in out.splitlines() if l.strip())["natural_frequencies"])
    w = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    rel = np.max(np.abs(w - ref) / ref)
    print(f"beam: natural frequencies vs nsd check: max rel. diff {rel:.1e} over {len(w)} modes")
    assert rel < 1e-6, "beam matrices do not match nsd's"


def beam_model():
    """models/seed3/cantilever_pad.nsd at excitation = 30: the pad (normal load held at N0 = 40 N)
    is a Jenkins element kt = 2e8 N/m, limit mu*N0 = 12 N, on y of node 14 (pyHarm node 13)."""
    M, K = cantilever_matrices()
    check_beam_frequencies(M, K)
    f = 30.0
    return Model(
        substructures={"beam": {"type": "substructure", "ndofs": 2,
                                "matrix": {"M": M, "C": 1e-6 * K, "K": K}}},
        connectors={
            "pad": {"type": "Jenkins", "k": 2e8, "mu": 0.3, "N0": 40.0, **ground_link("beam", 13)},
            "load": {"type": "CosinusForcing", "amp": f, **ground_link("beam", 19)},
        },
        monitor=("beam", 19, 0), force=f, lc=0.5, omega=(1250.0, 1800.0), time_cap_s=180)


CASES = [(f"{name}_h{h}", build, h) for name, build in
         (("duffing", duffing_model), ("jenkins", jenkins_model), ("beam", beam_model))
         for h in (1, 3, 7)]


# ----------------------------------------------------------------------------- pyHarm side
@dataclass
class Curve:
    omega: np.ndarray       # (n,)
    harmonics: np.ndarray   # (n, H+1): A0..AH of the monitored DOF
    maxabs: np.ndarray      # (n,) max |x| over the period
    times: list = field(default_factory=list)
    failed: int = 0         # rejected continuation steps
    states: np.ndarray = None  # pyHarm only: the scaled solution vectors [x, Omega/wc] along the branch


def pyharm_input(model, h, samples, omega_range):
    a, b = omega_range
    wc = model.omega[1] - model.omega[0]
    return {
        "system": {"type": "Base", "nh": h, "nti": samples,
                   "adim": {"status": True, "lc": model.lc, "wc": wc}},
        "substructures": model.substructures,
        "connectors": model.connectors,
        "analysis": {"frf": {
            "study": "frf", "puls_inf": a, "puls_sup": b,
            "predictor": "tangent", "corrector": "pseudo_arc_length", "stepsizer": "acceptance",
            "ds0": 0.01, "ds_max": 0.05, "ds_min": 1e-8,
            "solver": "NewtonRaphson",
            "solver_options": {"tol_residual": 1e-6 * model.force, "tol_delta_x": 1e-9, "max_iter": 20},
            "verbose": False,
            "stopper_options": {"timeout": {"status": bool(model.time_cap_s),
                                            "timeout": f"00:00:00:{model.time_cap_s or 3600}"}},
        }},
    }


def monitored_harmonics(system, states, monitor, h):
    """A0..AH of the monitored DOF and max|x| over the period, in physical units."""
    sub, node, dof = monitor
    edf = system.expl_dofs
    sel = edf[(edf["sub"] == sub) & (edf["node_num"] == node) & (edf["dof_num"] == dof)]
    idx = {(r.harm, r.cs): i for i, r in sel.iterrows()}
    X = np.atleast_2d(states)[:, :-1] * system.lc
    c = np.stack([X[:, idx[(k, "c")]] for k in range(h + 1)], axis=1)
    s = np.stack([np.zeros(len(X))] + [X[:, idx[(k, "s")]] for k in range(1, h + 1)], axis=1)
    theta = np.linspace(0, 2 * np.pi, 2048, endpoint=False)
    k = np.arange(h + 1)
    x_t = c @ np.cos(np.outer(k, theta)) + s @ np.sin(np.outer(k, theta))
    amps = np.hypot(c, s)
    amps[:, 0] = np.abs(c[:, 0])
    return amps, np.max(np.abs(x_t), axis=1)


def pyharm_system(model, h, samples, omega_range=None):
    return Maestro(pyharm_input(model, h, samples, omega_range or model.omega))


def run_pyharm_once(model, h, samples, omega_range=None):
    m = pyharm_system(model, h, samples, omega_range)
    t0 = time.perf_counter()
    m.operate()
    wall = time.perf_counter() - t0
    sols = m.nls["frf"].SolList
    acc = [s for s in sols if s.flag_accepted]
    return m.system, acc, len(sols) - len(acc), wall


def run_pyharm(model, h, samples):
    a, b = model.omega
    run_pyharm_once(model, h, samples, (a, a + 0.02 * (b - a)))  # warm-up: numba JIT / caches
    system, acc, failed, wall = run_pyharm_once(model, h, samples)
    times = [wall]
    if wall < SLOW_RUN_S:
        times += [run_pyharm_once(model, h, samples)[3] for _ in range(2)]
    states = np.array([s.x for s in acc])
    amps, maxabs = monitored_harmonics(system, states, model.monitor, h)
    return system, Curve(states[:, -1] * system.wc, amps, maxabs, times, failed, states)


# ----------------------------------------------------------------------------- nsd side
def run_nsd(names):
    """Runs bench/frf_peer.nsd NSD_RUNS times; returns per analysis the summaries and its data.csv."""
    wall = {}
    with tempfile.TemporaryDirectory() as out:
        for _ in range(NSD_RUNS):
            res = subprocess.run([str(NSD), "run", str(NSD_FILE), "--json", "--out", out],
                                 cwd=ROOT, capture_output=True, text=True)
            if res.returncode != 0:
                sys.exit(f"nsd failed ({res.returncode}):\n{res.stderr}")
            for line in res.stdout.splitlines():
                r = json.loads(line)
                wall.setdefault(r["name"], []).append(r["summary"])
        result = {}
        for name in names:
            data = np.genfromtxt(Path(out) / name / "data.csv", delimiter=",", names=True,
                                 deletechars="", dtype=float)
            cols = data.dtype.names
            a_cols = [c for c in cols if c.startswith("A") and c[1:].split("(")[0].isdigit()]
            curve = Curve(omega=data[cols[0]],
                          harmonics=np.stack([data[c] for c in a_cols], axis=1),
                          maxabs=data[next(c for c in cols if c.startswith("max|"))],
                          times=[s["wall_s"] for s in wall[name]])
            result[name] = (curve, wall[name][-1])
    return result


# ----------------------------------------------------------------------------- agreement
def parabola_peak(omega, amp):
    """Vertex of the parabola through the largest point and its neighbours (nsd's peak rule)."""
    i = int(np.argmax(amp))
    if 0 < i < len(amp) - 1 and len(set(omega[i - 1:i + 2])) == 3:
        p = np.polyfit(omega[i - 1:i + 2], amp[i - 1:i + 2], 2)
        if p[0] < 0:
            w = -p[1] / (2 * p[0])
            return w, np.polyval(p, w)
    return omega[i], amp[i]


def monotone_pieces(omega):
    """Index ranges [i, j) on which omega is strictly monotone (split at the folds)."""
    d = np.sign(np.diff(omega))
    turns = [0] + [i for i in range(1, len(d)) if d[i] != d[i - 1]] + [len(omega) - 1]
    return [(turns[k], turns[k + 1] + 1) for k in range(len(turns) - 1)]


def solve_at(system, omega_scaled, guess, tol_res, max_iter=40):
    """pyHarm's own HB equations (system.Residual / system.Jacobian) solved by Newton at a fixed
    (scaled) frequency from `guess`; None if it does not converge."""
    q = np.append(guess, omega_scaled)
    for _ in range(max_iter):
        r = system.Residual(q)
        jx, _ = system.Jacobian(q)
        dx = np.linalg.solve(jx, r)
        q[:-1] -= dx
        if np.linalg.norm(dx) < 1e-10 * max(1.0, np.linalg.norm(q[:-1])) and \
                np.linalg.norm(system.Residual(q)) < tol_res:
            return q
    return None


def a1_diff_at_reference(ref, system, curve, model, h):
    """|A1_pyHarm - A1_nsd| / A1_nsd with pyHarm's equations solved at nsd's own frequencies (no
    interpolation error), on the first and last Omega-monotone pieces of the branch (the single-
    valued, stable parts, before the first and after the last fold); the start guess is pyHarm's
    branch interpolated linearly along the matching piece."""
    rp, op = monotone_pieces(ref.omega), monotone_pieces(curve.omega)
    pairs = [(rp[0], op[0])] + ([(rp[-1], op[-1])] if len(rp) > 1 and len(op) > 1 else [])
    wc, diffs, failed = system.wc, [], 0
    for (ri, rj), (oi, oj) in pairs:
        w, X = curve.omega[oi:oj], curve.states[oi:oj, :-1]
        order = np.argsort(w)
        w, X = w[order], X[order]
        for wr, ar in zip(ref.omega[ri:rj], ref.harmonics[ri:rj, 1]):
            if not w[0] <= wr <= w[-1]:
                continue
            guess = np.array([np.interp(wr, w, X[:, k]) for k in range(X.shape[1])])
            q = solve_at(system, wr / wc, guess, 1e-6 * model.force)
            if q is None:
                failed += 1
                continue
            amps, _ = monitored_harmonics(system, q, model.monitor, h)
            diffs.append(abs(amps[0, 1] - ar) / ar)
    d = np.array(diffs)
    return d.max(), np.median(d), len(d), failed


def curve_distance(ref, other, width, height):
    """Largest distance of ref's points to other's polyline, in plot units (ref's points outside
    the Omega span of other, e.g. nsd's last point past the end of the range, are left out)."""
    keep = (ref.omega >= other.omega.min()) & (ref.omega <= other.omega.max())
    p = np.stack([ref.omega[keep] / width, ref.harmonics[keep, 1] / height], axis=1)
    q = np.stack([other.omega / width, other.harmonics[:, 1] / height], axis=1)
    a, b = q[:-1], q[1:]
    ab = b - a
    t = np.clip(np.einsum("ijk,jk->ij", p[:, None, :] - a[None], ab) / np.einsum("jk,jk->j", ab, ab), 0, 1)
    closest = a[None] + t[..., None] * ab[None]
    return np.min(np.linalg.norm(p[:, None, :] - closest, axis=2), axis=1).max()


# ----------------------------------------------------------------------------- main
FINE_SAMPLES = 2048  # pyHarm's AFT at this many samples: its sampling error out of the way


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    cases = [c for c in CASES if only in c[0]]
    nsd = run_nsd([c[0] for c in cases])
    models = {}
    rows, agree = [], []
    for name, build, h in cases:
        model = models.setdefault(build, build())
        samples = default_samples(h)
        print(f"{name}: pyHarm, H = {h}, {samples} samples ...", flush=True)
        system, ph = run_pyharm(model, h, samples)
        nc, summary = nsd[name]
        t_nsd, t_ph = statistics.median(nc.times), statistics.median(ph.times)
        n_nsd, n_ph = summary["points"], len(ph.omega)
        rows.append((name, h, n_nsd, t_nsd, t_nsd / n_nsd, n_ph, ph.failed, t_ph, t_ph / n_ph, t_ph / t_nsd,
                     len(ph.times)))
        w_n, a_n = summary["peak"]["Omega"], summary["peak"]["amplitude"]
        w_p, a_p = parabola_peak(ph.omega, ph.maxabs)
        same_n = a1_diff_at_reference(nc, system, ph, model, h)
        fine_system = pyharm_system(model, h, FINE_SAMPLES).system
        fine_n = a1_diff_at_reference(nc, fine_system, ph, model, h)
        width = model.omega[1] - model.omega[0]
        dist = curve_distance(nc, ph, width, nc.harmonics[:, 1].max())
        reached = ph.omega.max() >= model.omega[1] - 1e-9 * width
        agree.append((name, w_n, w_p, abs(w_p - w_n) / w_n, a_n, a_p, abs(a_p - a_n) / a_n,
                      same_n, fine_n, dist, reached))

    print("\nTimings (branch only; nsd: median of 5 summary.wall_s; pyHarm: median of 3 wall-clock runs "
          "if < 20 s, else 1; pH rej = rejected pyHarm steps)")
    hdr = (f"{'case':<11} {'H':>2} | {'nsd pts':>7} {'nsd s/curve':>11} {'nsd ms/pt':>9} | "
           f"{'pH pts':>6} {'pH rej':>6} {'pH s/curve':>10} {'pH ms/pt':>9} | {'pH/nsd':>8}")
    print(hdr)
    print("-" * len(hdr))
    for (name, h, nn, tn, tpn, npt, rej, tp, tpp, ratio, runs) in rows:
        print(f"{name:<11} {h:>2} | {nn:>7} {tn:>11.4f} {1e3 * tpn:>9.3f} | {npt:>6} {rej:>6} {tp:>10.3f} "
              f"{1e3 * tpp:>9.2f} | {ratio:>8.0f}" + ("" if runs > 1 else "  (1 pyHarm run)"))

    print("\nAgreement. Peak: largest max|x| over the period of the monitored DOF (nsd: summary.peak; pyHarm:"
          " the same parabola rule on its points).\nA1 rel: |A1_pyHarm - A1_nsd| / A1_nsd with pyHarm's HB"
          " equations solved at nsd's frequencies on the single-valued (stable) pieces, max / median over n"
          f" points,\n  with pyHarm's AFT at the same N samples as nsd's default and at N = {FINE_SAMPLES}."
          " Curve dist: largest distance of nsd's (Omega, A1) points to pyHarm's polyline, in plot units.")
    hdr = (f"{'case':<11} | {'nsd peak Om':>11} {'pH peak Om':>11} {'rel':>7} | {'nsd peak amp':>12} "
           f"{'pH peak amp':>11} {'rel':>7} | {'A1 rel, same N':>19} {'n':>4} | "
           f"{f'A1 rel, N={FINE_SAMPLES}':>19} | {'curve dist':>10}")
    print(hdr)
    print("-" * len(hdr))
    for (name, wn, wp, dw, an, ap, da, same_n, fine_n, dist, reached) in agree:
        notes = [] if reached else ["pyHarm stopped before the end of the range"]
        notes += [f"{f} Newton failures ({lbl})" for lbl, (_, _, _, f) in (("same N", same_n), ("fine", fine_n)) if f]
        print(f"{name:<11} | {wn:>11.6g} {wp:>11.6g} {dw:>7.1e} | {an:>12.6g} {ap:>11.6g} {da:>7.1e} | "
              f"{same_n[0]:>9.1e} {same_n[1]:>9.1e} {same_n[2]:>4} | {fine_n[0]:>9.1e} {fine_n[1]:>9.1e} | "
              f"{dist:>10.1e}" + (f"  ({'; '.join(notes)})" if notes else ""))


if __name__ == "__main__":
    main()
