#!/usr/bin/env python3
"""Benchmark of `headalloc plan` against experiment-selection baselines.

Synthetic truths (laws of the calibration's ladder and laws outside it)
give every run of a pool a loss; each strategy reveals runs one at a time
from the same pool, under the same budget, starting from the same initial
design; at 5%, 10%, 20% and 40% of the pool's total cost the same decision
rule picks the allocation at the target (D, N) from the runs revealed so
far, and the benchmark scores it against the truth's exact optimum.

    python3 bench/plan_bench.py [--instances N] [--quick] [--seed S]
                                [--output FILE.md] [--headalloc PATH]

With --replay RUNSFILE it replays a logged ablation instead (see
bench/README.md).  Not a timed test: the CPU times it prints are for
orientation, measured with getrusage(RUSAGE_CHILDREN) around each child.
"""

import argparse
import csv
import io
import json
import math
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

LEVELS = (0.05, 0.10, 0.20, 0.40)
BUDGET = 768                      # D = H * d_k, GPT-2 small's width
POOL_HEAD_DIMS = (8, 12, 16, 24, 32, 48, 64)      # H from 96 to 12
TARGET_HEAD_DIMS = (12, 16, 24, 32, 48)   # the truth's optimum at (D, N) is one of these
N_MIN = 1e6
N_STEP = math.sqrt(10.0)          # pool token counts n_k = N_MIN * N_STEP^k
TARGET_FACTOR = 10.0              # N = TARGET_FACTOR * the largest pool n
IN_LADDER = ("seeds", "smoothness", "power_s2", "power", "rate",
             "seeds+data", "power+data")
OUTSIDE = ("more-heads", "correlated")
FAMILIES = IN_LADDER + OUTSIDE
STRATEGIES = ("plan", "random", "cheapest", "cost-random", "d-optimal",
              "v-optimal", "extrap-var", "tpe")

# The smoothness law's free parameters in the fit's scale, the main law
# of the D-, V- and extrapolation-variance criteria.
SMOOTHNESS_FREE = "irreducible,bias_coef,smoothness,var_coef"


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


# ---------------------------------------------------------------------------
# Truths.  The generalised law of headalloc-model(7), CALIBRATION,
#   L = E + A n^-a + c_b d^-s (n/N_MIN)^-delta
#         + c_v d^(g d + k) n^-b (rho + (1 - rho)/H),
# written out here from the manual, not from the C code, in log space
# (the seeds' d^(d/2) leaves a double from d = 256 on).  delta = 0 and
# rho = 0 in every ladder law; delta > 0 makes the bias fall with n, so
# the optimum moves to more heads as n grows; rho > 0 is hdi < 1.

def ln_loss(p, heads, head_dim, n):
    ln_d = math.log(head_dim)
    terms = []
    if p["E"] > 0:
        terms.append(math.log(p["E"]))
    if p["A"] > 0:
        terms.append(math.log(p["A"]) - p["alpha"] * math.log(n))
    terms.append(p["ln_cb"] - p["s"] * ln_d - p["delta"] * math.log(n / N_MIN))
    factor = p["rho"] + (1.0 - p["rho"]) / heads
    terms.append(p["ln_cv"] + (p["gamma"] * head_dim + p["kappa"]) * ln_d
                 - p["beta"] * math.log(n) + math.log(factor))
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def variance_slope_ln(p, heads, head_dim, n):
    """ln of the variance term per unit c_v (the law is linear in c_v)."""
    factor = p["rho"] + (1.0 - p["rho"]) / heads
    return ((p["gamma"] * head_dim + p["kappa"]) * math.log(head_dim)
            - p["beta"] * math.log(n) + math.log(factor))


def rest_ln(p, heads, head_dim, n):
    """ln of the terms that differ between allocations, less the variance."""
    return p["ln_cb"] - p["s"] * math.log(head_dim) - p["delta"] * math.log(n / N_MIN)


def ln_diff(big, small):
    """ln(exp(big) - exp(small)) for big > small."""
    return big + math.log1p(-math.exp(small - big))


def ln_cv_interval(p, d_star, n):
    """The ln c_v for which d_star is the exact optimum over every divisor
    of BUDGET at n: the law is a + c_v b in every allocation, so each rival
    bounds c_v on one side."""
    lo, hi = -math.inf, math.inf
    a_s = rest_ln(p, BUDGET // d_star, d_star, n)
    b_s = variance_slope_ln(p, BUDGET // d_star, d_star, n)
    for d in divisors(BUDGET):
        if d == d_star:
            continue
        a = rest_ln(p, BUDGET // d, d, n)
        b = variance_slope_ln(p, BUDGET // d, d, n)
        if b > b_s:        # rival has more variance: c_v must be large enough
            if a >= a_s:
                continue   # never better than d_star
            lo = max(lo, ln_diff(a_s, a) - ln_diff(b, b_s))
        elif b < b_s:      # rival has less variance: c_v must be small enough
            if a <= a_s:
                return None
            hi = min(hi, ln_diff(a, a_s) - ln_diff(b_s, b))
        elif a <= a_s:
            return None
    if not (lo < hi) or math.isinf(lo) or math.isinf(hi):
        return None
    return lo, hi


def draw_truth(family, rng, n_target, n_pool_max):
    """Parameters around the ladder's least-squares fits to the repository's
    data/runs.yaml (E 1.80-1.81, ln c_b 3.70-3.92, s 2.11 where free,
    kappa 7.4 under power, gamma 0.085 under rate; see bench/README.md);
    the data term around Hoffmann et al.'s alpha = 0.28.  ln c_v is then
    drawn uniformly in the interval that makes a drawn interior head dim
    the exact optimum at the target."""
    for _ in range(1000):
        p = dict(E=rng.uniform(1.7, 1.9), A=0.0, alpha=0.28,
                 ln_cb=rng.normal(3.8, 0.3), s=2.0, gamma=0.5, kappa=0.0,
                 beta=1.0, delta=0.0, rho=0.0)
        free_s = lambda: 2.11 * math.exp(rng.normal(0.0, 0.2))
        # kappa from the Vaswani Table 3 fit (0, at its bound: the variance
        # falls as 1/H alone) to the runs.yaml fit (7.4)
        kappa = lambda: math.exp(rng.uniform(0.0, math.log(8.0)))
        if family in ("smoothness", "rate", "power", "power+data"):
            p["s"] = free_s()
        if family in ("power_s2", "power", "power+data"):
            p["gamma"], p["kappa"] = 0.0, kappa()
        if family == "rate":
            p["gamma"] = 0.085 * math.exp(rng.normal(0.0, 0.4))
        if family in ("seeds+data", "power+data", "more-heads"):
            p["alpha"] = rng.uniform(0.2, 0.4)
            p["A"] = rng.uniform(0.1, 0.5) * N_MIN ** p["alpha"]
        if family == "more-heads":
            # The bias falls with n faster than the variance: more heads win
            # at more tokens, which no law of the ladder can express.
            p["gamma"], p["kappa"] = 0.0, rng.uniform(0.5, 2.0)
            p["s"] = rng.uniform(1.5, 2.5)
            p["beta"] = rng.uniform(0.0, 0.1)
            p["delta"] = p["beta"] + rng.uniform(0.15, 0.3)
        if family == "correlated":
            # Correlated heads (hdi < 1); the ladder holds hdi at 1.
            p["gamma"], p["kappa"] = 0.0, kappa()
            p["s"] = free_s()
            p["rho"] = 1.0 - rng.uniform(0.3, 0.8)
        d_star = int(rng.choice(TARGET_HEAD_DIMS))
        interval = ln_cv_interval(p, d_star, n_target)
        if interval is None:
            continue
        lo, hi = interval
        p["ln_cv"] = rng.uniform(lo, hi)
        p["family"] = family
        return p
    raise RuntimeError(f"no truth of family {family} found")


def true_optimum(p, n):
    best = None
    for d in divisors(BUDGET):
        v = ln_loss(p, BUDGET // d, d, n)
        if best is None or v < best[0]:
            best = (v, d)
    return best[1], math.exp(best[0])


# ---------------------------------------------------------------------------
# Instances

def make_instance(index, seed):
    rng = np.random.default_rng([seed, index])
    family = FAMILIES[index % len(FAMILIES)]
    k = int(rng.integers(4, 7))       # 4 to 6 token counts (see README)
    ns = [N_MIN * N_STEP ** i for i in range(k)]
    n_target = TARGET_FACTOR * ns[-1]
    truth = draw_truth(family, rng, n_target, ns[-1])
    sigma = rng.uniform(0.003, 0.01)
    pool = []
    for n in ns:
        for d in POOL_HEAD_DIMS:
            h = BUDGET // d
            ln_l = ln_loss(truth, h, d, n)
            observed = math.exp(ln_l + sigma * rng.standard_normal())
            pool.append(dict(heads=h, head_dim=d, samples=n,
                             cost=float(BUDGET) * n, loss=observed))
    d_opt, l_opt = true_optimum(truth, n_target)
    return dict(index=index, family=family, truth=truth, sigma=sigma,
                pool=pool, n_target=n_target, d_opt=d_opt, l_opt=l_opt,
                seed=int(rng.integers(1, 2**31 - 1)))


def true_regret(inst, head_dim):
    if head_dim is None:
        return math.nan
    l = math.exp(ln_loss(inst["truth"], BUDGET // head_dim, head_dim,
                         inst["n_target"]))
    return (l - inst["l_opt"]) / inst["l_opt"]


# ---------------------------------------------------------------------------
# The headalloc CLI

class Cli:
    def __init__(self, exe, workdir, decision_rule):
        self.exe = exe
        self.dir = workdir
        self.rule = decision_rule
        self.calls = 0
        self.failures = []

    def run(self, args):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([self.exe] + args, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        self.calls += 1
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or [""]
            self.failures.append(f"{args[0]} exit {proc.returncode}: {tail[0]}")
            return None, cpu
        try:
            return json.loads(proc.stdout), cpu
        except json.JSONDecodeError:
            self.failures.append(f"{args[0]}: unreadable JSON")
            return None, cpu

    def write_runs(self, name, rows, with_loss):
        path = os.path.join(self.dir, name)
        with open(path, "w", newline="") as f:
            cols = ["heads", "head_dim", "samples", "loss" if with_loss else "cost"]
            w = csv.writer(f)
            w.writerow(cols)
            for r in rows:
                w.writerow([r["heads"], r["head_dim"], repr(float(r["samples"])),
                            repr(float(r["loss" if with_loss else "cost"]))])
        return path

    def target_args(self, inst):
        return ["--budget", str(BUDGET), "--samples", repr(inst["n_target"])]

    def decide(self, inst, runs, pool):
        """The decision at the target from the runs revealed: plan's
        decision with --next 0, or (stand-in) the most frequent allocation
        of calibrate's model-averaged distribution."""
        runs_file = self.write_runs("runs.csv", runs, True)
        if self.rule == "plan":
            pool_file = self.write_runs("pool.csv", pool, False)
            out, cpu = self.run(["plan", runs_file] + self.target_args(inst)
                                + ["--pool", pool_file, "--next", "0",
                                   "--seed", str(inst["seed"]), "--format", "json"])
            if out is None:
                return None, cpu
            return out["decision"]["head_dim"], cpu
        out, cpu = self.run(["calibrate", runs_file] + self.target_args(inst)
                            + ["--compare", "--bootstrap", "50", "--threads", "1",
                               "--quiet", "--seed", str(inst["seed"]),
                               "--format", "json"])
        if out is None:
            return None, cpu
        averaged = out.get("comparison", {}).get("averaged") or []
        if not averaged:
            return None, cpu
        best = max(averaged, key=lambda a: a["share"])
        return best["head_dim"], cpu

    def plan_next(self, inst, runs, pool):
        runs_file = self.write_runs("runs.csv", runs, True)
        pool_file = self.write_runs("pool.csv", pool, False)
        out, cpu = self.run(["plan", runs_file] + self.target_args(inst)
                            + ["--pool", pool_file, "--next", "1",
                               "--seed", str(inst["seed"]), "--format", "json"])
        if out is None or not out.get("plan"):
            return None, cpu, out
        pick = out["plan"][0]
        for i, c in enumerate(pool):
            if (c["heads"] == pick["heads"] and c["head_dim"] == pick["head_dim"]
                    and math.isclose(c["samples"], pick["samples"], rel_tol=1e-9)):
                return i, cpu, out
        self.failures.append("plan picked a run outside the pool")
        return None, cpu, out

    def initial_design(self, inst):
        """plan's initial design (no runs) where available, else the
        stand-in: 5 distinct head dims at the smallest n plus the middle
        head dim at the next two n."""
        pool = inst["pool"]
        if self.rule == "plan":
            pool_file = self.write_runs("pool.csv", pool, False)
            out, _ = self.run(["plan"] + self.target_args(inst)
                              + ["--pool", pool_file, "--seed", str(inst["seed"]),
                                 "--format", "json"])
            if out and out.get("plan"):
                picks = []
                for pick in out["plan"]:
                    for i, c in enumerate(pool):
                        if (c["heads"] == pick["heads"] and c["head_dim"] == pick["head_dim"]
                                and math.isclose(c["samples"], pick["samples"], rel_tol=1e-9)):
                            picks.append(i)
                if picks:
                    return picks, "plan"
        ns = sorted({c["samples"] for c in pool})
        want = [(d, ns[0]) for d in (8, 16, 24, 32, 64)] + [(24, ns[1]), (24, ns[2])]
        picks = [i for i, c in enumerate(pool) if (c["head_dim"], c["samples"]) in want]
        return picks, "stand-in"

    def fit_smoothness(self, runs):
        runs_file = self.write_runs("fit.csv", runs, True)
        out, cpu = self.run(["calibrate", runs_file, "--free", SMOOTHNESS_FREE,
                             "--huber-delta", "inf", "--bootstrap", "0",
                             "--threads", "1", "--quiet", "--format", "json"])
        if out is None:
            return None, cpu
        par = out["calibration"]["parameters"]
        return np.array([par["irreducible"]["value"], par["bias_coef"]["value"],
                         par["smoothness"]["value"], par["var_coef"]["value"]]), cpu


# ---------------------------------------------------------------------------
# Design criteria on the smoothness law (gamma = 1/2, kappa = 0, hdi = 1)

def jacobian_row(theta, heads, head_dim, n):
    """d ln L / d (E, ln c_b, s, ln c_v), analytic."""
    e, ln_cb, s, ln_cv = theta
    ln_d = math.log(head_dim)
    ln_b = ln_cb - s * ln_d
    ln_v = ln_cv + 0.5 * head_dim * ln_d - math.log(n) - math.log(heads)
    terms = [ln_b, ln_v] + ([math.log(e)] if e > 0 else [])
    top = max(terms)
    ln_l = top + math.log(sum(math.exp(t - top) for t in terms))
    b, v = math.exp(ln_b - ln_l), math.exp(ln_v - ln_l)
    return np.array([math.exp(-ln_l), b, -ln_d * b, v])


def information(theta, runs):
    rows = np.array([jacobian_row(theta, r["heads"], r["head_dim"], r["samples"])
                     for r in runs])
    m = rows.T @ rows
    return m + 1e-10 * np.trace(m) * np.eye(4)


def criterion_pick(kind, theta, runs, cands, inst):
    m_inv = np.linalg.pinv(information(theta, runs))
    jc = np.array([jacobian_row(theta, c["heads"], c["head_dim"], c["samples"])
                   for c in cands])
    lever = np.einsum("ij,jk,ik->i", jc, m_inv, jc)
    if kind == "d-optimal":
        # det(M + j j') = det(M)(1 + j' M^-1 j)
        return int(np.argmax(lever))
    if kind == "v-optimal":
        region = jc                       # the pool's own design region
        cost = np.ones(len(cands))
    else:                                 # extrapolation variance at the target
        region = np.array([jacobian_row(theta, BUDGET // d, d, inst["n_target"])
                           for d in POOL_HEAD_DIMS])
        cost = np.array([c["cost"] for c in cands])
    cross = region @ m_inv @ jc.T         # t x candidates
    reduction = (cross ** 2).sum(axis=0) / (1.0 + lever)
    return int(np.argmax(reduction / cost))


# ---------------------------------------------------------------------------
# One strategy on one instance

def run_strategy(name, inst, cli, initial, rng):
    pool = inst["pool"]
    total = sum(c["cost"] for c in pool)
    cap = max(LEVELS) * total
    revealed = list(initial)
    spent = sum(pool[i]["cost"] for i in revealed)
    step_cpu = []
    fallbacks = 0
    tpe = None
    if name == "tpe":
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        dist = {"run": optuna.distributions.CategoricalDistribution(list(range(len(pool))))}
        tpe = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(
            seed=int(rng.integers(1, 2**31 - 1))))
        for i in revealed:
            tpe.add_trial(optuna.trial.create_trial(params={"run": i}, distributions=dist,
                                                    value=pool[i]["loss"]))
    while True:
        open_ = [i for i in range(len(pool))
                 if i not in revealed and spent + pool[i]["cost"] <= cap * (1 + 1e-12)]
        if not open_:
            break
        t_self = time.process_time()
        child = 0.0
        pick = None
        if name == "random":
            pick = open_[int(rng.integers(len(open_)))]
        elif name == "cheapest":
            low = min(pool[i]["cost"] for i in open_)
            ties = [i for i in open_ if pool[i]["cost"] == low]
            pick = ties[int(rng.integers(len(ties)))]
        elif name == "cost-random":
            w = np.array([1.0 / pool[i]["cost"] for i in open_])
            pick = open_[int(rng.choice(len(open_), p=w / w.sum()))]
        elif name in ("d-optimal", "v-optimal", "extrap-var"):
            theta, child = cli.fit_smoothness([pool[i] for i in revealed])
            if theta is not None:
                pick = open_[criterion_pick(name, theta, [pool[i] for i in revealed],
                                            [pool[i] for i in open_], inst)]
        elif name == "tpe":
            for _ in range(50):
                trial = tpe.ask()
                i = trial.suggest_categorical("run", list(range(len(pool))))
                if i in open_:
                    pick = i
                    tpe.tell(trial, pool[i]["loss"])
                    break
                # Already revealed: its loss is known, free of cost; out of
                # the budget: no run, so the worst loss seen.
                known = pool[i]["loss"] if i in revealed else max(
                    pool[j]["loss"] for j in revealed)
                tpe.tell(trial, known)
        elif name == "plan":
            sub, child, out = cli.plan_next(inst, [pool[i] for i in revealed],
                                            [pool[i] for i in open_])
            if sub is None:
                if out is not None:
                    break          # plan has nothing to pick
            else:
                pick = open_[sub]
        if pick is None:
            fallbacks += 1
            pick = open_[int(rng.integers(len(open_)))]
            if name == "tpe":
                tpe.add_trial(optuna.trial.create_trial(
                    params={"run": pick}, distributions=dist, value=pool[pick]["loss"]))
        step_cpu.append(time.process_time() - t_self + child)
        revealed.append(pick)
        spent += pool[pick]["cost"]
    return revealed, step_cpu, fallbacks


def evaluate_instance(args):
    inst, exe, rule, strategies = args
    with tempfile.TemporaryDirectory(prefix="plan_bench.") as tmp:
        cli = Cli(exe, tmp, rule)
        pool = inst["pool"]
        total = sum(c["cost"] for c in pool)
        initial, initial_from = cli.initial_design(inst)
        cache = {}
        decision_cpu = []
        out = dict(index=inst["index"], family=inst["family"], d_opt=inst["d_opt"],
                   initial=len(initial), initial_from=initial_from,
                   initial_share=sum(pool[i]["cost"] for i in initial) / total,
                   strategies={})
        for k, name in enumerate(strategies):
            rng = np.random.default_rng([inst["seed"], k])
            seq, step_cpu, fallbacks = run_strategy(name, inst, cli, initial, rng)
            levels = []
            for f in LEVELS:
                prefix, spent = [], 0.0
                for i in seq:
                    if spent + pool[i]["cost"] > f * total * (1 + 1e-12):
                        break
                    spent += pool[i]["cost"]
                    prefix.append(i)
                if len(prefix) < len(initial):
                    prefix = list(initial)    # the initial design is never cut
                    spent = sum(pool[i]["cost"] for i in prefix)
                key = tuple(sorted(prefix))
                if key not in cache:
                    rest = [c for i, c in enumerate(pool) if i not in key]
                    d, cpu = cli.decide(inst, [pool[i] for i in prefix], rest)
                    cache[key] = d
                    decision_cpu.append(cpu)
                d = cache[key]
                levels.append(dict(head_dim=d, correct=(d == inst["d_opt"]),
                                   regret=true_regret(inst, d), runs=len(prefix),
                                   spent=spent / total))
            out["strategies"][name] = dict(levels=levels, step_cpu=step_cpu,
                                           fallbacks=fallbacks, sequence=seq)
        out["decision_cpu"] = decision_cpu
        out["failures"] = cli.failures
        return out


# ---------------------------------------------------------------------------
# Tables

def mean_se(values):
    a = np.array([v for v in values if not math.isnan(v)], dtype=float)
    if len(a) == 0:
        return math.nan, math.nan, 0
    se = a.std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else math.nan
    return a.mean(), se, len(a)


def tables(results, strategies, rule, args, elapsed):
    lines = []
    n = len(results)
    lines.append(f"# plan_bench: {n} instances, seed {args.seed}, decision rule: "
                 + ("plan --next 0" if rule == "plan" else
                    "STAND-IN (calibrate --compare, most frequent allocation of the "
                    "model-averaged distribution; plan's decision was not available)"))
    lines.append("")
    fams = {}
    for r in results:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    lines.append("Families: " + ", ".join(f"{k} {v}" for k, v in fams.items())
                 + f". D = {BUDGET}, pool head dims {POOL_HEAD_DIMS[0]}-{POOL_HEAD_DIMS[-1]}"
                 f" ({len(POOL_HEAD_DIMS)}) x 4-6 token counts from 1e6 by sqrt(10), cost = D n,"
                 " target N = 10 x the largest pool n.")
    init = [r["initial_share"] for r in results]
    lines.append(f"Initial design: {results[0]['initial']} runs ({results[0]['initial_from']}),"
                 f" {100 * min(init):.1f}%-{100 * max(init):.1f}% of the pool's cost"
                 " (a level below it uses the initial design alone).")
    lines.append("")
    head = "| strategy | " + " | ".join(f"P(correct) @{int(f * 100)}%" for f in LEVELS) \
        + " | " + " | ".join(f"regret @{int(f * 100)}%" for f in LEVELS) \
        + " | runs @40% | CPU s/step |"
    lines.append(head)
    lines.append("|" + "---|" * (2 + 2 * len(LEVELS) + 1))
    for name in strategies:
        cells = []
        for j in range(len(LEVELS)):
            c = [1.0 if r["strategies"][name]["levels"][j]["correct"] else 0.0 for r in results]
            p = sum(c) / n
            cells.append(f"{100 * p:.0f}% ± {100 * math.sqrt(p * (1 - p) / n):.0f}")
        for j in range(len(LEVELS)):
            m, se, k = mean_se([r["strategies"][name]["levels"][j]["regret"] for r in results])
            cells.append(f"{100 * m:.3f}% ± {100 * se:.3f}" + ("" if k == n else f" ({n - k} none)"))
        runs40 = np.mean([r["strategies"][name]["levels"][-1]["runs"] for r in results])
        cpu = [c for r in results for c in r["strategies"][name]["step_cpu"]]
        cells.append(f"{runs40:.1f}")
        cells.append(f"{np.mean(cpu):.3f}" if cpu else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("P(correct): share of instances whose decision is the truth's exact optimum"
                 " at (D, N) (± binomial standard error); regret: (true loss of the decision"
                 " - true minimum) / true minimum, mean ± standard error; runs: revealed"
                 " runs at 40%; CPU s/step: selection only (child processes by"
                 " getrusage(RUSAGE_CHILDREN) plus this process's time), not the decision.")
    lines.append("")
    # by group
    lines.append("| strategy | group | " + " | ".join(f"P @{int(f * 100)}%" for f in LEVELS) + " |")
    lines.append("|" + "---|" * (2 + len(LEVELS)))
    for name in strategies:
        for group, members in (("in-ladder", IN_LADDER), ("outside", OUTSIDE)):
            rs = [r for r in results if r["family"] in members]
            if not rs:
                continue
            cells = []
            for j in range(len(LEVELS)):
                p = np.mean([r["strategies"][name]["levels"][j]["correct"] for r in rs])
                cells.append(f"{100 * p:.0f}% ± {100 * math.sqrt(p * (1 - p) / len(rs)):.0f} (n={len(rs)})")
            lines.append(f"| {name} | {group} | " + " | ".join(cells) + " |")
    lines.append("")
    dec = [c for r in results for c in r["decision_cpu"]]
    fails = sum(len(r["failures"]) for r in results)
    fb = {s: sum(r["strategies"][s]["fallbacks"] for r in results) for s in strategies}
    lines.append(f"Decision CPU: {np.mean(dec):.3f} s a call over {len(dec)} calls."
                 f" CLI failures: {fails}. Random fallbacks (no fit / TPE stuck): "
                 + ", ".join(f"{k} {v}" for k, v in fb.items() if v) + "."
                 f" Wall time {elapsed:.0f} s.")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Replay of a logged ablation

def read_runs_file(path):
    """A flow-style YAML runs file or CSV, enough for data/*.yaml."""
    rows = []
    if path.endswith(".csv"):
        with open(path) as f:
            for r in csv.DictReader(f):
                rows.append(dict(heads=int(r["heads"]), head_dim=int(r["head_dim"]),
                                 samples=float(r["samples"]), loss=float(r["loss"])))
        return rows
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line.startswith("- {"):
            body = line[3:line.rindex("}")]
            kv = dict(part.split(":", 1) for part in body.split(","))
            kv = {k.strip(): v.strip() for k, v in kv.items()}
            rows.append(dict(heads=int(kv["heads"]), head_dim=int(kv["head_dim"]),
                             samples=float(kv["samples"]), loss=float(kv["loss"])))
    return rows


def replay(args, rule):
    runs = read_runs_file(args.replay)
    for r in runs:
        r["cost"] = r["heads"] * r["head_dim"] * r["samples"]
    n_target = max(r["samples"] for r in runs)
    at_target = [r for r in runs if r["samples"] == n_target and
                 r["heads"] * r["head_dim"] == args.replay_budget]
    best = min(at_target, key=lambda r: r["loss"])
    inst = dict(n_target=n_target, seed=args.seed)
    global BUDGET
    BUDGET = args.replay_budget
    lines = [f"Replay of {args.replay}: {len(runs)} runs; target D = {BUDGET}, N = {n_target:g};"
             f" measured best at the target {best['heads']} x {best['head_dim']}"
             f" (loss {best['loss']})."]
    with tempfile.TemporaryDirectory(prefix="plan_bench.") as tmp:
        cli = Cli(args.headalloc, tmp, rule)
        rng = np.random.default_rng(args.seed)

        def reached(order, fit_from):
            """The number of revealed runs at which the decision first
            equals the measured best, and the decisions along the way."""
            trail = []
            for k in range(fit_from, len(order) + 1):
                shown = [runs[i] for i in order[:k]]
                rest = [runs[i] for i in range(len(runs)) if i not in order[:k]]
                d, _ = cli.decide(inst, shown, rest)
                trail.append((k, d))
                if d == best["head_dim"]:
                    return k, trail
            return None, trail

        fit_from = args.replay_start
        # plan's order: its initial design where it gives one, then --next 1.
        order = []
        if rule == "plan":
            inst_pool = dict(inst, pool=runs)
            order, _ = cli.initial_design(inst_pool)
            while len(order) < len(runs):
                rest = [i for i in range(len(runs)) if i not in order]
                sub, _, out = cli.plan_next(inst, [runs[i] for i in order],
                                            [runs[i] for i in rest])
                if sub is None:
                    order += [rest[j] for j in rng.permutation(len(rest))]
                    break
                order.append(rest[sub])
            k_plan, trail = reached(order, min(fit_from, len(order)))
            lines.append("plan's order: " + ", ".join(
                f"{runs[i]['heads']}x{runs[i]['head_dim']}@{runs[i]['samples']:g}" for i in order))
            lines.append("plan's decisions (revealed runs: head_dim): "
                         + ", ".join(f"{k}: {d}" for k, d in trail))
            lines.append(f"plan reaches the measured best after {k_plan} revealed runs.")
        ks = []
        for _ in range(args.replay_orders):
            order = [int(i) for i in rng.permutation(len(runs))]
            k, _ = reached(order, fit_from)
            ks.append(k if k is not None else len(runs) + 1)
        m, se, _ = mean_se(ks)
        lines.append(f"Random orders ({args.replay_orders}): reach the measured best after"
                     f" {m:.2f} ± {se:.2f} revealed runs on average (never reached counts as"
                     f" {len(runs) + 1}); decision rule "
                     + ("plan --next 0" if rule == "plan" else "STAND-IN (calibrate --compare)") + ".")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------

def has_plan(exe):
    proc = subprocess.run([exe, "plan", "--help"], capture_output=True, text=True)
    return proc.returncode == 0 and "--pool" in proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=100)
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: 3 instances")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--output", help="also write the table as Markdown to this file")
    ap.add_argument("--headalloc", default=os.environ.get("HEADALLOC", "build/src/cli/headalloc"))
    ap.add_argument("--workers", type=int, default=2, help="at most 2")
    ap.add_argument("--decision", choices=("auto", "plan", "calibrate"), default="auto",
                    help="plan's decision (--next 0) or the calibrate stand-in")
    ap.add_argument("--strategies", default=",".join(STRATEGIES))
    ap.add_argument("--replay", metavar="RUNSFILE")
    ap.add_argument("--replay-budget", type=int, default=512)
    ap.add_argument("--replay-orders", type=int, default=50)
    ap.add_argument("--replay-start", type=int, default=5,
                    help="the first prefix length a random order is judged at")
    args = ap.parse_args()
    if args.workers < 1 or args.workers > 2:
        ap.error("--workers: 1 or 2")
    if args.instances < 1:
        ap.error("--instances: at least 1")
    rule = args.decision
    if rule == "auto":
        rule = "plan" if has_plan(args.headalloc) else "calibrate"
    if rule == "plan" and not has_plan(args.headalloc):
        ap.error(f"--decision plan: {args.headalloc} has no plan command")
    strategies = [s for s in args.strategies.split(",") if s]
    for s in strategies:
        if s not in STRATEGIES:
            ap.error(f"--strategies: unknown {s}")
    if rule != "plan" and "plan" in strategies:
        strategies.remove("plan")
        print("plan_bench: headalloc has no plan command: strategy plan left out, "
              "decisions by the calibrate stand-in", file=sys.stderr)
    start = time.time()
    if args.replay:
        text = replay(args, rule)
    else:
        count = 3 if args.quick else args.instances
        insts = [make_instance(i, args.seed) for i in range(count)]
        jobs = [(inst, args.headalloc, rule, strategies) for inst in insts]
        if args.workers == 1 or count == 1:
            results = [evaluate_instance(j) for j in jobs]
        else:
            with multiprocessing.Pool(args.workers) as p:
                results = []
                for r in p.imap_unordered(evaluate_instance, jobs):
                    results.append(r)
                    print(f"plan_bench: {len(results)}/{count} instances",
                          file=sys.stderr, flush=True)
        results.sort(key=lambda r: r["index"])
        text = tables(results, strategies, rule, args, time.time() - start)
    sys.stdout.write(text)
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
