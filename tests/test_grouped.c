/* The grouped allocation over (H, G, d) against independent methods:
 * F from the explicit sum over every pair of heads, the integer optimum
 * and the trade-off front from a brute force over every (H, G) found by
 * trial division, and the relaxation over real (d, G) from a dense,
 * zooming grid search (headalloc-model(7), GROUPED-QUERY ATTENTION). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include <headalloc/headalloc.h>
#include "alloc/solver_internal.h"
#include "alloc/model_internal.h"

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * UINT64_C(2685821657736338717);
}

static double uniform(uint64_t *state, double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_random(state) >> 11) / 9007199254740992.0;
}

/* ln f(x, G) - the reducible part, ln(c_b x^-s + c_v x^(γx+κ)/n^β F)
 * with F = rho + (1 - rho_g) x/D + (rho_g - rho)/G - of real (x, G),
 * written from headalloc-model(7), GROUPED-QUERY ATTENTION (The
 * relaxation). */
static double log_relaxed_grouped(const struct ha_model *m, double samples,
                                  double budget, double x, double kv_heads)
{
	double rho = 1.0 - m->hdi, rho_g = 1.0 - m->group_hdi;
	double factor = rho + (1.0 - rho_g) * x / budget + (rho_g - rho) / kv_heads;
	double lx = log(x);
	double log_bias = ha_model_log_bias_coef(m) - m->smoothness * lx;
	double log_var = ha_model_log_var_coef(m) - m->var_samples_power * log(samples) +
	                 (m->var_rate * x + m->var_power) * lx + log(factor);
	return ha_log_add(log_bias, log_var);
}

static struct ha_model random_model(uint64_t *s, double *samples)
{
	struct ha_model m = ha_model_defaults();
	*samples = exp(uniform(s, log(10.0), log(1e14)));
	m.smoothness = uniform(s, 0.5, 4.0);
	m.bias_coef = exp(uniform(s, -3.0, 3.0));
	m.var_coef = exp(uniform(s, -3.0, 3.0));
	m.hdi = uniform(s, 0.0, 1.0);
	/* Sometimes the structural ties: hdi = group_hdi (G does not
	 * matter) and the default group_hdi 0. */
	uint64_t pick = next_random(s) % 4;
	m.group_hdi = pick == 0 ? m.hdi : pick == 1 ? 0.0 : uniform(s, 0.0, 1.0);
	return m;
}

/* F by its definition: the mean of the H x H correlation matrix, 1 on
 * the diagonal, rho_g within a group, rho across groups. */
static long double pair_mean(long double rho, long double rho_g, uint64_t H,
                             uint64_t G)
{
	uint64_t g = H / G;
	long double sum = 0.0L;
	for (uint64_t i = 0; i < H; i++)
		for (uint64_t j = 0; j < H; j++)
			sum += i == j ? 1.0L : i / g == j / g ? rho_g : rho;
	return sum / ((long double)H * (long double)H);
}

Test(grouped, ungrouped_is_the_model_bit_for_bit)
{
	uint64_t s = 11;
	for (int k = 0; k < 2000; k++) {
		double n_samples;
		struct ha_model m = random_model(&s, &n_samples);
		uint64_t D = 1 + next_random(&s) % 5000, d = 1 + next_random(&s) % D;
		while (D % d)
			d--;
		struct ha_terms a, b;
		cr_assert_eq(ha_model_eval(&m, n_samples, D, d, &a), HA_OK);
		cr_assert_eq(ha_model_eval_grouped(&m, n_samples, D, d, D / d, &b), HA_OK);
		cr_assert(memcmp(&a, &b, sizeof a) == 0, "D %lu d %lu", (unsigned long)D,
		          (unsigned long)d);
		/* The key at G = H is the ungrouped comparison's, term by term. */
		double x = ha_model_log_relative_mse(&m, n_samples, D, d, D / d);
		double H = (double)(D / d), rho = 1.0 - m.hdi;
		double y = ha_log_add(-m.smoothness * log((double)d),
		                      ha_model_log_var_coef(&m) - ha_model_log_bias_coef(&m) +
		                      (m.var_rate * d + m.var_power) * log((double)d) -
		                      m.var_samples_power * log(n_samples) +
		                      log(rho + (1.0 - rho) / H));
		cr_assert(memcmp(&x, &y, sizeof x) == 0);
	}
}

Test(grouped, factor_is_the_mean_pair_correlation)
{
	uint64_t s = 12;
	for (int k = 0; k < 400; k++) {
		double n_samples;
		struct ha_model m = random_model(&s, &n_samples);
		uint64_t D = 64 * (1 + next_random(&s) % 16);
		uint64_t d = 1 + next_random(&s) % 8;
		while (D % d)
			d--;
		uint64_t H = D / d, G = 1 + next_random(&s) % H;
		while (H % G)
			G--;
		struct ha_terms t;
		cr_assert_eq(ha_model_eval_grouped(&m, n_samples, D, d, G, &t), HA_OK);
		long double F = pair_mean(1.0L - m.hdi, 1.0L - m.group_hdi, H, G);
		long double var = (long double)m.var_coef *
		                  powl((long double)d, 0.5L * d) / n_samples;
		long double want = (long double)m.bias_coef * powl((long double)d, -m.smoothness) +
		                   var * F;
		cr_assert(fabsl(t.mse - want) <= 1e-12L * want, "mse %.17g want %.17Lg",
		          t.mse, want);
		cr_assert(fabsl(t.variance + t.covariance - var * F) <= 1e-12L * var * F);
		cr_assert(fabsl(expl((long double)t.log_mse) - want) <= 1e-12L * want);
		cr_assert(fabs(t.variance - (double)(var / H)) <= 1e-12 * t.variance);
	}
	/* Not a divisor: refused. */
	struct ha_model m = ha_model_defaults();
	struct ha_terms t;
	cr_assert_eq(ha_model_eval_grouped(&m, HA_SAMPLES_DEFAULT, 64, 8, 3, &t), HA_EINVAL);
	cr_assert_eq(ha_model_eval_grouped(&m, HA_SAMPLES_DEFAULT, 64, 8, 0, &t), HA_EINVAL);
	m.group_hdi = 1.5;
	cr_assert_eq(ha_model_validate(&m), HA_EINVAL);
}

/* The brute force: every (d, G) by trial division, keys in long double
 * from the formula of F, the tie rule and the front by its definition. */
struct cand {
	uint64_t d, G;
	long double key;
};

static long double ref_key(const struct ha_model *m, double samples, uint64_t D, uint64_t d,
                           uint64_t G)
{
	long double dd = d, H = (long double)(D / d), g = H / G;
	long double rho = 1.0L - m->hdi, rho_g = 1.0L - m->group_hdi;
	long double F = (1.0L + (g - 1.0L) * rho_g + (H - g) * rho) / H;
	long double b = -(long double)m->smoothness * logl(dd);
	long double v = logl((long double)m->var_coef) - logl((long double)m->bias_coef) +
	                0.5L * dd * logl(dd) - logl((long double)samples) + logl(F);
	long double hi = b > v ? b : v, lo = b > v ? v : b;
	return hi + log1pl(expl(lo - hi));
}

static int better(const struct cand *a, const struct cand *b)
{
	if (a->key < b->key - 1e-12L)
		return 1;
	if (a->key > b->key + 1e-12L)
		return 0;
	return a->G > b->G || (a->G == b->G && a->d < b->d);
}

struct problem {
	uint64_t D;
	struct ha_constraints c;
	struct ha_kv_constraints kv;
};

static int d_ok(const struct problem *p, uint64_t d)
{
	uint64_t H = p->D / d;
	const struct ha_constraints *c = &p->c;
	return (!c->head_dim_multiple || d % c->head_dim_multiple == 0) &&
	       (!c->min_head_dim || d >= c->min_head_dim) &&
	       (!c->max_head_dim || d <= c->max_head_dim) &&
	       (!c->min_heads || H >= c->min_heads) &&
	       (!c->max_heads || H <= c->max_heads);
}

static int kv_ok(const struct problem *p, uint64_t d, uint64_t G)
{
	const struct ha_kv_constraints *k = &p->kv;
	return (!k->kv_heads || G == k->kv_heads) &&
	       (!k->min_kv_heads || G >= k->min_kv_heads) &&
	       (!k->max_kv_heads || G <= k->max_kv_heads) &&
	       (!k->max_kv_dim || G * d <= k->max_kv_dim);
}

static struct problem random_problem(uint64_t *s)
{
	static const uint64_t budgets[] = {64, 96, 256, 360, 512, 720, 1024, 4096, 5040};
	struct problem p = {budgets[next_random(s) % 9], {0}, {0}};
	if (next_random(s) % 3 == 0)
		p.c.min_head_dim = 1 + next_random(s) % 16;
	if (next_random(s) % 3 == 0)
		p.c.max_heads = 1 + next_random(s) % 128;
	uint64_t pick = next_random(s) % 4;
	if (pick == 0)
		p.kv.max_kv_dim = 1 + next_random(s) % p.D;
	else if (pick == 1)
		p.kv.kv_heads = 1 + next_random(s) % 16;
	else if (pick == 2) {
		p.kv.min_kv_heads = 1 + next_random(s) % 4;
		p.kv.max_kv_heads = p.kv.min_kv_heads + next_random(s) % 32;
		p.kv.max_kv_dim = 1 + next_random(s) % p.D;
	}
	return p;
}

Test(grouped, brute_force_agrees_with_the_solver)
{
	uint64_t s = 21;
	int solved = 0, infeasible = 0;
	struct cand *all = malloc(20000 * sizeof *all);
	cr_assert(all);
	for (int k = 0; k < 600; k++) {
		double n_samples;
		struct ha_model m = random_model(&s, &n_samples);
		struct problem p = random_problem(&s);
		size_t n = 0, nf = 0, cands = 0;
		struct cand best = {0, 0, 0}, unc = {0, 0, 0};
		int have = 0, have_unc = 0;
		for (uint64_t d = 1; d <= p.D; d++) {
			if (p.D % d || !d_ok(&p, d))
				continue;
			for (uint64_t G = 1; G <= p.D / d; G++) {
				if ((p.D / d) % G)
					continue;
				struct cand c = {d, G, ref_key(&m, n_samples, p.D, d, G)};
				cands++;
				if (!have_unc || better(&c, &unc))
					unc = c, have_unc = 1;
				if (!kv_ok(&p, d, G))
					continue;
				nf++;
				all[n++] = c;
				if (!have || better(&c, &best))
					best = c, have = 1;
			}
		}
		struct ha_solver *solver;
		if (ha_solver_new(p.D, &p.c, &solver) != HA_OK) {
			cr_assert(!have_unc);
			continue;
		}
		struct ha_grouped_solution sol;
		enum ha_status st = ha_grouped_solve(&(struct ha_grouped_request){
			.solver = solver, .model = &m, .samples = n_samples, .kv = &p.kv, .front = 1}, &sol);
		if (!have) {
			cr_assert_eq(st, HA_EINFEASIBLE);
			infeasible++;
			ha_solver_free(solver);
			continue;
		}
		cr_assert_eq(st, HA_OK, "status %d", st);
		solved++;
		cr_assert_eq(sol.certificate.candidates, cands);
		cr_assert_eq(sol.certificate.feasible, nf);
		cr_assert(sol.certificate.bound >= cands);
		cr_assert_eq(sol.optimum.head_dim, best.d, "D %lu: d %lu want %lu",
		             (unsigned long)p.D, (unsigned long)sol.optimum.head_dim,
		             (unsigned long)best.d);
		cr_assert_eq(sol.optimum.kv_heads, best.G);
		cr_assert_eq(sol.unconstrained.head_dim, unc.d);
		cr_assert_eq(sol.unconstrained.kv_heads, unc.G);
		cr_assert_eq(sol.optimum.kv_dim, best.G * best.d);
		cr_assert_eq(sol.optimum.kv_cache_bytes_per_token, 2 * best.G * best.d * 2);
		cr_assert(sol.optimum.loss_ratio >= 1.0 - 1e-12);
		/* The front by definition: c is on it when no allocation of a
		 * smaller or equal cache is better (or as good with a smaller
		 * one); ordered by decreasing cache. */
		size_t on = 0;
		for (size_t i = 0; i < n; i++) {
			int dominated = 0;
			for (size_t j = 0; j < n && !dominated; j++) {
				uint64_t ci = all[i].G * all[i].d, cj = all[j].G * all[j].d;
				if (j == i || cj > ci)
					continue;
				dominated = cj < ci ? all[j].key <= all[i].key + 1e-12L
				                    : better(&all[j], &all[i]);
			}
			if (dominated)
				continue;
			on++;
			int found = 0;
			for (size_t f = 0; f < sol.front_count; f++)
				found |= sol.front[f].head_dim == all[i].d &&
				         sol.front[f].kv_heads == all[i].G;
			cr_assert(found, "D %lu: (d %lu, G %lu) not on the front",
			          (unsigned long)p.D, (unsigned long)all[i].d,
			          (unsigned long)all[i].G);
		}
		cr_assert_eq(sol.front_count, on);
		for (size_t f = 1; f < sol.front_count; f++) {
			cr_assert(sol.front[f].kv_dim < sol.front[f - 1].kv_dim);
			cr_assert(sol.front[f].log_relative_mse > sol.front[f - 1].log_relative_mse);
		}
		/* The front starts at the optimum's error; of allocations tied
		 * with it, the smallest cache (a larger one buys nothing). */
		cr_assert(fabs(sol.front[0].log_relative_mse -
		               sol.optimum.log_relative_mse) <= 1e-12);
		cr_assert(sol.front[0].kv_dim <= sol.optimum.kv_dim);
		ha_grouped_solution_finish(&sol);
		ha_solver_free(solver);
	}
	free(all);
	cr_assert(solved > 300 && infeasible > 5, "solved %d infeasible %d", solved,
	          infeasible);
}

Test(grouped, max_loss_ratio_picks_the_smallest_cache_within)
{
	struct ha_solver *solver;
	cr_assert_eq(ha_solver_new(4096, NULL, &solver), HA_OK);
	struct ha_model m = ha_model_defaults();
	double n_samples = 1e12;
	m.hdi = 0.9;
	struct ha_grouped_solution sol;
	cr_assert_eq(ha_grouped_solve(&(struct ha_grouped_request){
		.solver = solver, .model = &m, .samples = n_samples, .max_loss_ratio = 1.5}, &sol), HA_OK);
	cr_assert(sol.chosen < sol.front_count);
	cr_assert(sol.front[sol.chosen].loss_ratio <= 1.5);
	for (size_t i = sol.chosen + 1; i < sol.front_count; i++)
		cr_assert(sol.front[i].loss_ratio > 1.5);
	ha_grouped_solution_finish(&sol);
	cr_assert_eq(ha_grouped_solve(&(struct ha_grouped_request){
		.solver = solver, .model = &m, .samples = n_samples, .max_loss_ratio = 0.5}, &sol), HA_EINVAL);
	ha_solver_free(solver);
}

/* The relaxation against a dense grid in (ln x, ln G), zoomed ten times
 * around its best point: every grid point meeting the constraints. */
static void grid_minimum(const struct ha_model *m, double samples, double D, double ulo,
                         double uhi, double wlo, double whi, double top,
                         double *bu, double *bw, double *bf)
{
	*bf = INFINITY;
	for (int zoom = 0; zoom < 14; zoom++) {
		int N = 200;
		double su = (uhi - ulo) / N, sw = (whi - wlo) / N;
		for (int i = 0; i <= N; i++)
			for (int j = 0; j <= N; j++) {
				double u = ulo + i * su, w = wlo + j * sw;
				if (u + w > top)
					w = top - u;
				if (w < wlo || w > whi)
					continue;
				double f = log_relaxed_grouped(m, samples, D, exp(u), exp(w));
				if (f < *bf)
					*bf = f, *bu = u, *bw = w;
			}
		double ru = 4 * su, rw = 4 * sw;
		ulo = fmax(ulo, *bu - ru), uhi = fmin(uhi, *bu + ru);
		wlo = fmax(wlo, *bw - rw), whi = fmin(whi, *bw + rw);
	}
}

Test(grouped, relaxation_agrees_with_a_dense_grid)
{
	uint64_t s = 31;
	int checked = 0;
	for (int k = 0; k < 60; k++) {
		double n_samples;
		struct ha_model m = random_model(&s, &n_samples);
		uint64_t D = UINT64_C(1) << (6 + next_random(&s) % 9);
		struct ha_kv_constraints kv = {0, 0, 0, 0};
		if (next_random(&s) % 2)
			kv.max_kv_dim = 1 + next_random(&s) % D;
		if (next_random(&s) % 3 == 0)
			kv.max_kv_heads = 1 + next_random(&s) % 32;
		struct ha_solver *solver;
		cr_assert_eq(ha_solver_new(D, NULL, &solver), HA_OK);
		struct ha_grouped_relaxed r;
		cr_assert_eq(ha_grouped_solve_relaxed(solver, &m, n_samples, &kv, &r), HA_OK);
		double top = log((double)D);
		if (kv.max_kv_dim)
			top = fmin(top, log((double)kv.max_kv_dim));
		double whi = kv.max_kv_heads ? log((double)kv.max_kv_heads) : log((double)D);
		double bu = 0.0, bw = 0.0, bf;
		grid_minimum(&m, n_samples, (double)D, 0.0, log((double)D), 0.0, whi, top, &bu, &bw, &bf);
		double f = log_relaxed_grouped(&m, n_samples, (double)D, r.head_dim, r.kv_heads);
		cr_assert(fabs(r.log_mse - f) <= 1e-12 * fmax(1.0, fabs(f)));
		/* The error within a relative 1e-6, and no better than the grid's
		 * by more than rounding; the point within 1e-6 too. */
		cr_assert(fabs(expm1(f - bf)) <= 1e-6, "k %d: f %.17g grid %.17g", k, f, bf);
		cr_assert(fabs(r.head_dim - exp(bu)) <= 1e-6 * r.head_dim,
		          "k %d: x %.17g grid %.17g", k, r.head_dim, exp(bu));
		/* G does not matter when group_hdi = hdi: then the largest. */
		if (m.group_hdi == m.hdi)
			bw = fmin(whi, top - log(r.head_dim));
		cr_assert(fabs(r.kv_heads - exp(bw)) <= 1e-6 * r.kv_heads,
		          "k %d: G %.17g grid %.17g", k, r.kv_heads, exp(bw));
		cr_assert(r.kv_heads * r.head_dim <= (kv.max_kv_dim ? kv.max_kv_dim : D) * (1 + 1e-12));
		checked++;
		ha_solver_free(solver);
	}
	cr_assert_eq(checked, 60);
}
