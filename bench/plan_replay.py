"""Replay of a logged ablation for bench/plan_bench.py --replay."""

import csv
import tempfile

import numpy as np

from plan_cli import Cli
from plan_truths import mean_se

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
    # The decision and the picks stay within the head dims the ablation
    # measured, as bench/README.md advises a user: beyond them no logged
    # loss could say whether a decision there was right.
    lo = min(r["head_dim"] for r in runs)
    hi = max(r["head_dim"] for r in runs)
    inst = dict(n_target=n_target, seed=args.seed, budget=args.replay_budget,
                constraints=["--min-head-dim", str(lo), "--max-head-dim", str(hi)])
    lines = [f"Replay of {args.replay}: {len(runs)} runs; target D = {args.replay_budget}, N = {n_target:g};"
             f" head dims {lo} to {hi};"
             f" measured best at the target {best['heads']} x {best['head_dim']}"
             f" (loss {best['loss']})."]
    total = sum(r["cost"] for r in runs)

    def spent(order, k):
        """The share of the whole log's cost in the first k runs of order."""
        return sum(runs[i]["cost"] for i in order[:k]) / total

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
            lines.append(f"plan reaches the measured best after {k_plan} revealed runs"
                         + (f", {100 * spent(order, k_plan):.1f}% of the log's cost."
                            if k_plan is not None else "."))
        ks, costs = [], []
        for j in range(args.replay_orders):
            order = [int(i) for i in rng.permutation(len(runs))]
            k, trail = reached(order, fit_from)
            ks.append(k if k is not None else len(runs) + 1)
            costs.append(spent(order, k if k is not None else len(runs)))
            if j < 3:
                lines.append(f"random order {j + 1}: " + ", ".join(
                    f"{runs[i]['heads']}x{runs[i]['head_dim']}@{runs[i]['samples']:g}"
                    for i in order) + "; decisions " + ", ".join(
                    f"{kk}: {d}" for kk, d in trail))
        m, se, _ = mean_se(ks)
        cm, cse, _ = mean_se(costs)
        lines.append(f"Random orders ({args.replay_orders}): reach the measured best after"
                     f" {m:.2f} ± {se:.2f} revealed runs and {100 * cm:.1f}% ± {100 * cse:.1f}"
                     f" of the log's cost on average (never reached counts as"
                     f" {len(runs) + 1} runs and the whole cost); decision rule "
                     + ("plan --next 0" if rule == "plan" else "STAND-IN (calibrate --compare)") + ".")
    return "\n".join(lines) + "\n"

