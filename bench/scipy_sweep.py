#!/usr/bin/env python3
"""The per-point work of a headalloc sweep, written the usual way with
NumPy and SciPy, for headalloc-bench to compare against in the same run.

    scipy_sweep.py BUDGET FROM TO POINTS CHECKS [minimize_scalar]

For each of POINTS log-spaced n in [FROM, TO] (model defaults of headalloc-model(7), THE OBJECTS:
s = 2, c_b = c_v = 1, hdi = 1): the integer optimum over the divisors of
BUDGET (found once, as headalloc's solver does), vectorised with NumPy,
and the continuous relaxation, the root of d ln f / du (u = ln x) by
scipy.optimize.brentq to full precision after the same checks of the
slope at the bounds.  With the argument minimize_scalar, the naive loop
instead: per point, the integer optimum as above and the relaxation by
scipy.optimize.minimize_scalar (bounded, on ln f in u, xatol 1e-10),
without the bound checks.  Prints one line "rate POINTS_PER_SECOND SECONDS" (CPU
time),
then CHECKS lines "n head_dim relaxed_head_dim" (n in full precision) for
the caller to check the answers against its own.  Exit status 3, with a
message, when NumPy or SciPy is missing.
"""
import math
import sys
import time

try:
    import numpy as np
    from scipy.optimize import brentq, minimize_scalar
except ImportError as e:  # the bench reports the skip
    print(f"skipped: {e}", file=sys.stderr)
    sys.exit(3)

S, C_B, C_V, HDI = 2.0, 1.0, 1.0, 1.0
RHO = 1.0 - HDI


def divisors(n):
    small, large = [], []
    d = 1
    while d * d <= n:
        if n % d == 0:
            small.append(d)
            if d * d != n:
                large.append(n // d)
        d += 1
    return np.array(small + large[::-1], dtype=np.float64)


def integer_optimum(dims, heads, n):
    """ln(MSE / c_b) over every divisor; the smallest d within 1e-12 of
    the minimum (the tie rule)."""
    log_bias = -S * np.log(dims)
    log_var = (math.log(C_V) - math.log(C_B) + 0.5 * dims * np.log(dims)
               - math.log(n) + np.log(RHO + (1.0 - RHO) / heads))
    value = np.logaddexp(log_bias, log_var)
    return dims[np.argmax(value <= value.min() + 1e-12)]


def slope(u, n, budget):
    """d ln f / du of f(x) = c_b x^-s + c_v x^(x/2) (rho + (1-rho) x/D) / n."""
    x = math.exp(u)
    factor = RHO + (1.0 - RHO) * x / budget
    log_bias = math.log(C_B) - S * u
    log_var = math.log(C_V) + 0.5 * x * u + math.log(factor) - math.log(n)
    if log_var > log_bias:  # the share of the bias, without overflow
        t = math.exp(log_bias - log_var)
        w_bias = t / (1.0 + t)
    else:
        w_bias = 1.0 / (1.0 + math.exp(log_var - log_bias))
    dvar = 0.5 * x * (u + 1.0) + (1.0 - RHO) * x / budget / factor
    return -S * w_bias + (1.0 - w_bias) * dvar


def relaxed_optimum(n, budget, lo, hi):
    if slope(lo, n, budget) >= 0:
        return math.exp(lo)
    if slope(hi, n, budget) <= 0:
        return math.exp(hi)
    return math.exp(brentq(slope, lo, hi, args=(n, budget), xtol=1e-15,
                           rtol=4 * sys.float_info.epsilon, maxiter=200))


def log_f(u, n, budget):
    x = math.exp(u)
    log_bias = math.log(C_B) - S * u
    log_var = (math.log(C_V) + 0.5 * x * u
               + math.log(RHO + (1.0 - RHO) * x / budget) - math.log(n))
    return np.logaddexp(log_bias, log_var)


def relaxed_minimize_scalar(n, budget, lo, hi):
    r = minimize_scalar(log_f, bounds=(lo, hi), args=(n, budget),
                        method="bounded", options={"xatol": 1e-10})
    return math.exp(r.x)


def main():
    budget, lo_n, hi_n, points, checks = (int(sys.argv[1]), float(sys.argv[2]),
                                          float(sys.argv[3]), int(sys.argv[4]),
                                          int(sys.argv[5]))
    dims = divisors(budget)
    heads = budget / dims
    lo, hi = 0.0, math.log(budget)
    ns = [math.exp(math.log(lo_n) + (math.log(hi_n) - math.log(lo_n)) * i / (points - 1))
          for i in range(points)]
    relaxed = relaxed_optimum
    if len(sys.argv) > 6 and sys.argv[6] == "minimize_scalar":
        relaxed = relaxed_minimize_scalar
    results = []
    start = time.process_time()  # CPU time, as headalloc-bench's in-process rates
    for n in ns:
        results.append((integer_optimum(dims, heads, n), relaxed(n, budget, lo, hi)))
    seconds = time.process_time() - start
    print(f"rate {points / seconds:.6g} {seconds:.6g}")
    step = max(1, points // max(1, checks))
    for i in range(0, points, step)[:checks]:
        print(f"{ns[i]!r} {int(results[i][0])} {results[i][1]!r}")


if __name__ == "__main__":
    main()
