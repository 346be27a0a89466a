"""The selection strategies of bench/plan_bench.py: one picks the runs of an
instance's pool one at a time, within the budget, after the initial design."""

import math
import time

import numpy as np

from plan_truths import LEVELS, POOL_HEAD_DIMS

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
        region = np.array([jacobian_row(theta, inst["budget"] // d, d, inst["n_target"])
                           for d in POOL_HEAD_DIMS])
        cost = np.array([c["cost"] for c in cands])
    cross = region @ m_inv @ jc.T         # t x candidates
    reduction = (cross ** 2).sum(axis=0) / (1.0 + lever)
    return int(np.argmax(reduction / cost))


# ---------------------------------------------------------------------------
# One strategy on one instance

def run_strategy(name, inst, cli, initial, rng, honour_stop=True):
    pool = inst["pool"]
    total = sum(c["cost"] for c in pool)
    cap = max(LEVELS) * total
    revealed = list(initial)
    spent = sum(pool[i]["cost"] for i in revealed)
    step_cpu = []
    fallbacks = 0
    stopped_at = None
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
            if out is not None and out.get("stop") and stopped_at is None:
                # plan says "train the target now": by default the
                # strategy stops there and every later level keeps that
                # decision; with honour_stop off it goes on with plan's
                # best pick and only notes where plan would have stopped.
                stopped_at = len(revealed)
                if honour_stop:
                    break
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
        step_cpu.append((time.process_time() - t_self + child, len(revealed), len(open_)))
        revealed.append(pick)
        spent += pool[pick]["cost"]
    return revealed, step_cpu, fallbacks, stopped_at

