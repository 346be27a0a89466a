/* Internals of the calibration (calibrate*.c); not installed. */
#ifndef HEADALLOC_CALIBRATE_INTERNAL_H
#define HEADALLOC_CALIBRATE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <headalloc/calibrate.h>

#include "base/error_internal.h"
#include "base/pool.h"

/* The caller's progress callback heard inside long fits (a full fit's
 * grid of starts takes up to seconds): told again where the work stands
 * (what, done of total), on the thread that made the call only; once it
 * returns non-zero the fits stop at their next start and return
 * HA_ECANCELED (calibrate_search.c). */
struct cal_poll {
	const struct ha_progress *progress;
	const char *what;   /* static: the unit, as the callback takes it */
	size_t done, total;
	pthread_t caller;
	double last;        /* when the callback was last told (monotonic) */
	atomic_int stopped;
};
void cal_poll_init(struct cal_poll *p, const struct ha_progress *progress,
                   const char *what, size_t total);
/* Tell the callback now (from the calling thread): 0 when it stops the
 * work, or stopped it before. */
int cal_poll_tell(struct cal_poll *p);

/* The runs reduced to what the objective needs, once. */
struct cal_data {
	size_t m;
	double *log_d;     /* ln d */
	double *d_log_d;   /* d ln d */
	double *log_n;     /* ln n */
	double *log_loss;  /* ln L */
	double *inv_w;     /* L/se, or 1 without se: r_i = inv_w (ln L - ln L̂) */
	double *cover;     /* 1 - 1/H: q = 1 - hdi cover = rho + (1 - rho)/H;
	                      (H - g)/H for a run in groups of g = H/G > 1 */
	double *gcover;    /* (g - 1)/H: q = 1 - hdi cover - group_hdi gcover
	                      (the grouped F); 0 without groups */
	int grouped;       /* some run has kv_heads < heads */
	double *weight;    /* multiplicity in the objective (bootstrap, LOO) */
	double *log_q1;    /* ln(1 - cover), ln q at hdi = 1 (NULL: computed) */
	double loss_min;   /* the smallest L */
	double log_n_min;  /* the smallest ln n */
	void *block;       /* one allocation for all of the above */
	/* runs of one configuration (H, d, n) are one design point */
	size_t *config;    /* run i's configuration, in [0, distinct) */
	size_t *order;     /* the runs grouped by configuration (in config's block) */
	size_t distinct;   /* distinct configurations */
	size_t threads;    /* the full fits' and leave-one-out's threads
	                      (base/pool.h; 1 from cal_data_init) */
	struct cal_poll *poll; /* a cancellation point inside the fits'
	                          searches; NULL (cal_data_init): none */
};

/* The runs' data, weights 1 (calibrate_design.c); HA_ENOMEM. */
enum ha_status cal_data_init(struct cal_data *data, const struct ha_run *runs,
                             size_t count);
void cal_data_free(struct cal_data *data);

/* ln L̂ of run i at fit-scale parameters th (E >= 0). */
double cal_log_fitted(const struct cal_data *data, const double *th, size_t i);

/* The parts of one run's ln L̂ that the objective computes on the way
 * (calibrate_objective.c), in doubles. */
#define CAL_PARTS 10

/* The objective sum_i weight_i huber(r_i) at th (all ten, fit scale);
 * +inf if a weighted run's ln L̂ is not finite.  With grad, the gradient
 * in all ten (fixed ones included; the caller picks).  With kept, each
 * weighted run's parts into kept[m * CAL_PARTS] (when finite) for
 * cal_residuals at the same th: the Levenberg–Marquardt iteration at an
 * accepted point takes them rather than computing them again (the same
 * doubles). */
double cal_objective(const struct cal_data *data, const double *th,
                     double delta, double *grad, double *kept);

/* Residuals r_i (standardised) into r[m] and their Jacobian d r_i / d th_j
 * into jac[m * HA_CAL_PARAMS] (row-major; NULL to skip).  0 when some
 * weighted run's ln L̂ is not finite (r then undefined), else 1.  index
 * (NULL: all): the parameters index[0..k) the Levenberg–Marquardt
 * iteration reads, jac's other columns holding no meaning (A's is 0
 * unless asked for).  kept (NULL: none): cal_objective's parts at th,
 * finite, from which the weighted runs' residuals come, the unweighted
 * runs' r and jac rows then 0. */
int cal_residuals(const struct cal_data *data, const double *th,
                  const double *kept, const int *index, int k, double *r,
                  double *jac);

/* The domain box of each parameter in fit scale. */
extern const double cal_lower[HA_CAL_PARAMS];
extern const double cal_upper[HA_CAL_PARAMS];

/* Whether the weighted runs can fit k free parameters
 * (calibrate_design.c): at least k + 1 distinct configurations (H, d,
 * n), and (k > 0) two distinct head dimensions, or one where the law
 * frees at most one of E, c_b, s and one of c_v, γ, κ (law = NULL: not
 * one).  Fills msg (HA_CAL_MESSAGE_MAX) with the reason when not. */
int cal_identifiable(const struct cal_data *data, const struct ha_run *runs,
                     size_t k, const struct ha_cal_law *law, char *msg);

/* The runs' leverages h[m] at th, each in [0, 1] (calibrate_fit.c);
 * 0 on no memory. */
int cal_leverage(const struct cal_data *data, const struct ha_cal_law *law,
                 const double *th, double *h);

/* The bootstrap's warnings (calibrate_boot.c), its coverage's among
 * them; 0 on no memory. */
int cal_bootstrap_warnings(struct ha_calibration *c, const struct cal_data *data,
                           const struct ha_run *runs);

/* Whether the weighted runs can fit the law's free data term: A, α (and
 * β) free need runs at 3 or more distinct n (E + A n^-α on fewer is one
 * number per n).  Fills msg with the reason when not. */
int cal_data_term_identifiable(const struct cal_data *data,
                               const struct ha_cal_law *law, char *msg);

/* The local fit of one law on the weighted data (calibrate_search.c).
 * start = NULL: the full search from the grid (L-BFGS, then
 * Levenberg–Marquardt to convergence), then from seed_count seeds
 * (HA_CAL_PARAMS fit-scale values each; the law's fixed values replace
 * theirs), *total counting them.  Else a refit (leave-one-out) from
 * start by Levenberg–Marquardt alone with a looser stop and a step cap.
 * On HA_OK th[HA_CAL_PARAMS] holds the best parameters, *objective its
 * value; *total and *reached count the starts, *converged says whether
 * the best one stopped by its tolerance rather than its step cap (each
 * may be NULL). */
enum ha_status cal_minimise(const struct cal_data *data,
                            const struct ha_cal_law *law, double delta,
                            const double *start, const double *seeds,
                            size_t seed_count, double *th, double *objective,
                            size_t *total, size_t *reached, int *converged);

/* A bootstrap refit (calibrate_search.c) from seed_count seeds (as
 * cal_minimise's) and every start of the grid, Levenberg–Marquardt alone
 * (the refit's cap and tolerance) from each; the best end into th. */
enum ha_status cal_refit_grid(const struct cal_data *data,
                              const struct ha_cal_law *law, double delta,
                              const double *seeds, size_t seed_count,
                              double *th, double *objective, int *converged);

/* Append a warning to c (calibrate.c); 0 when out of memory. */
int cal_warn(struct ha_calibration *c, enum ha_cal_warning_kind kind,
             const char *fmt, ...) HA_PRINTF(3, 4);

/* HA_OK when δ > 0 and every fixed value is in its domain. */
enum ha_status cal_check_law(const struct ha_cal_law *law, double delta,
                             struct ha_error *err);

/* ha_cal_fit_runs on prepared data (weights included), the runs and the
 * law already validated, with cal_minimise's seeds. */
enum ha_status cal_fit_data(const struct ha_run *runs, const struct cal_data *data,
                            const struct ha_cal_law *law, double delta,
                            const double *seeds, size_t seed_count,
                            struct ha_cal_fit *out, struct ha_error *err);

/* The optimum at the target (n = samples) under fit-scale values th:
 * 1 with its heads, head_dim and (loss not NULL) L̂, or 0 (the outputs
 * untouched) without a solver, a valid model or an optimum. */
int cal_predict(const struct ha_solver *solver, double samples,
                const double *th, uint64_t *heads, uint64_t *head_dim,
                double *loss);

/* The bootstrap of the fit in c->fit (calibrate_boot.c): fills
 * c->bootstrap, the fit's ci95, and with a solver the prediction's
 * distribution.  HA_ENOMEM, or HA_ECANCELED by o->progress. */
enum ha_status cal_bootstrap(const struct ha_run *runs, const struct cal_data *data,
                             double delta, const struct ha_cal_options *options,
                             const struct ha_solver *solver, double samples,
                             struct ha_calibration *c);

/* The comparison into c->comparison (calibrate_compare.c).
 * o->progress hears of the laws fitted, then of the comparison's
 * resamples, and may stop the work: HA_ECANCELED.  Else HA_ENOMEM only:
 * a law that cannot be fitted is a row with its status. */
enum ha_status cal_compare(const struct ha_run *runs, const struct cal_data *data,
                           const struct ha_cal_options *o,
                           const struct ha_solver *solver, double samples,
                           struct ha_calibration *c);

/* HA_EINVAL when o's user laws are not distinct names clear of the
 * ladder's, or too many. */
enum ha_status cal_check_user_laws(const struct ha_cal_options *o,
                                   struct ha_error *err);

/* In rows[*count] (room for *cap), the row of head_dim gains more in
 * count and share in share, or is appended (calibrate_boot.c); 0 when
 * out of memory. */
int cal_add_share(struct ha_cal_share **rows, size_t *count, size_t *cap,
                  uint64_t heads, uint64_t head_dim, size_t more, double share);

/* Sort rows by share, the largest first, ties by head_dim
 * (calibrate_boot.c). */
void cal_sort_shares(struct ha_cal_share *rows, size_t count);

/* The seeds of comparison row r (calibrate_compare.c): the optima
 * (values[row]) of the fitted rows it contains, and `extra` when it lies
 * in r's law; returns their count. */
size_t cal_row_seeds(const struct ha_calibration *c, size_t r,
                     const double *values, const int *fitted,
                     const struct ha_cal_law *extra, double *seeds);

/* The rows' bootstrap (calibrate_boot.c) with a solver;
 * order is the fitting order, ls_values the rows' least-squares optima
 * (ls_fitted: which exist).  HA_ENOMEM, or HA_ECANCELED when
 * o->progress, told of the resamples refitted, stops it. */
enum ha_status cal_compare_bootstrap(const struct ha_run *runs,
                                     const struct cal_data *data,
                                     const struct ha_cal_options *o,
                                     const struct ha_solver *solver,
                                     double samples, struct ha_calibration *c,
                                     const size_t *order,
                                     const double *ls_values,
                                     const int *ls_fitted);

/* c->least_squares: the main law by least squares beside its Huber fit
 * c->fit (at δ), with the warnings when δ lies below the residual scale
 * or the prediction changes.  HA_ENOMEM only. */
enum ha_status cal_least_squares(const struct ha_run *runs,
                                 const struct cal_data *data, double delta,
                                 const struct ha_solver *solver, double samples,
                                 struct ha_calibration *c);

/* Levenberg–Marquardt on the Huber objective (calibrate_lm.c) over the
 * free parameters index[0..k) from th (objective f there); th moves to
 * the result, whose objective is returned.  r[2 m], jac[m *
 * HA_CAL_PARAMS] and jk[m * HA_CAL_PARAMS] (the free columns of jac,
 * gathered) are workspace. */
struct cal_lm {
	const struct cal_data *data;
	double delta;
	int steps;        /* at most this many accepted steps */
	double tolerance; /* stop when a step gains <= tolerance * objective */
	int index[HA_CAL_PARAMS];
	int k;
	double *r, *jac, *jk;
	double *kept;     /* 2 m CAL_PARTS: the parts at a trial and at its
	                     correction (cal_objective) */
	int converged;    /* out: stopped by tolerance, not by the step cap */
	double bar;       /* a refit's best end so far in its resample
	                     (INFINITY: none): stop once this start cannot
	                     get below it (calibrate_lm.c, CATCH_WINDOW) */
	double bar_margin; /* and, to stop, more than this above bar (a
	                      full search's reached margin; 0 for refits) */
	double near;      /* and stop a start within near f of bar that is
	                     not gaining more (calibrate_lm.c; refits:
	                     CAL_NEAR_BAR, else 0) */
	int abandoned;    /* out: stopped by bar, its end above bar (1: far
	                     above, 2: near it) */
	/* Least squares: the Gauss–Newton model's undamped Hessian J'WJ
	 * (k x k, lower triangle), gradient J'Wr and value at 0, once a
	 * step. */
	double ls_h[HA_CAL_PARAMS * HA_CAL_PARAMS], ls_g[HA_CAL_PARAMS], ls_q0;
};

double cal_levenberg(struct cal_lm *lm, double *th, double f);

/* A bootstrap refit's resolution: a start that comes within this share
 * of the objective above the best end so far, and is gaining no more
 * than that over its remaining steps, has reached it (cal_lm.near). */
#define CAL_NEAR_BAR 1e-7

/* Free-parameter count of a law. */
size_t cal_free_count(const struct ha_cal_law *law);

/* The parameter of a name, or -1 when the name is not one of the ten. */
int ha_cal_param_lookup(const char *name);

/* 1 for bias_coef and var_coef, whose fit-scale value is ln c. */
int ha_cal_param_is_log(enum ha_cal_param param);

/* Whether a value to fix, as given (c_b, not ln c_b; log_form: the
 * log_bias_coef or log_var_coef form, any finite number), lies in the
 * parameter's domain; *what says the domain in the words that follow
 * "NAME = " in every front end's refusal ("a number > 0"). */
int ha_cal_fixed_in_domain(enum ha_cal_param k, int log_form, double v,
                           const char **what);

/* Whether a report lists this parameter: the seven of the seeds' model
 * always; data_coef, data_power and var_samples_power when free or fixed
 * off the model's default (so reports without the data term stay as
 * they were); group_hdi likewise when free or fixed off its default 0.
 * 0 for an out-of-range param or NULL estimate. */
int ha_cal_param_reported(enum ha_cal_param param,
                          const struct ha_cal_estimate *estimate);

/* HA_OK when every run is in its domain; else HA_EINVAL with a message
 * naming the run (1-based) and the field ("run 3: loss must be a finite
 * number > 0, found -1").  count = 0 or a NULL array is HA_EINVAL. */
enum ha_status ha_cal_validate_runs(const struct ha_run *runs,
                                    size_t count, struct ha_error *err);

/* All ten fixed at the model's values (ln c_b, ln c_v through
 * ha_model_log_*_coef), name "". */
void ha_cal_law_from_model(struct ha_cal_law *law,
                           const struct ha_model *model);

/* 1 when every law of inner's is one of outer's: inner's free
 * parameters are free in outer, and each parameter outer fixes inner
 * fixes at the same value (the nesting of the comparison; a law contains
 * itself).  0 otherwise or for a NULL law. */
int ha_cal_law_contains(const struct ha_cal_law *outer,
                        const struct ha_cal_law *inner);

/* "cases", "residuals" or "wild"; NULL for an out-of-range value. */
const char *ha_cal_bootstrap_kind_str(enum ha_cal_bootstrap_kind kind);

/* The kind's word in "the case bootstrap": "case", "residual", "wild". */
const char *cal_bootstrap_word(enum ha_cal_bootstrap_kind kind);

/* Fit one law to the runs (validated here) with Huber δ.
 *
 * Refusals (HA_EDEGENERATE with a message): fewer runs than free
 * parameters + 1; a single distinct head_dim while anything is free.
 * HA_EINVAL for bad runs, a NULL pointer, δ not > 0, or a fixed value out
 * of its domain; HA_ENUMERIC when no start reaches a finite objective;
 * HA_ENOMEM.  The starts: calibrate_search.c's grid (grid_starts, with
 * its linear starts), each by L-BFGS, then Levenberg–Marquardt, to
 * convergence; the best end wins.
 *
 * On HA_OK *out owns its residuals: release with ha_cal_fit_finish(). */
enum ha_status ha_cal_fit_runs(const struct ha_run *runs, size_t count,
                               const struct ha_cal_law *law,
                               double huber_delta,
                               struct ha_cal_fit *out,
                               struct ha_error *err);

/* Free what a fit owns (not the struct); NULL is accepted. */
void ha_cal_fit_finish(struct ha_cal_fit *fit);

/* ln L̂ at a point under fit-scale values (a law's value[], a row of
 * bootstrap.refits), evaluated as the fit evaluates a run (at a run's
 * (D, d, n) it is the run's log_fitted, bit for bit), through
 * log-sum-exp: finite for every point and every value in the
 * parameters' domains, however far L̂ lies beyond a double.  NaN for a
 * NULL argument or a point out of its domain. */
double ha_cal_log_loss(const double value[HA_CAL_PARAMS],
                       const struct ha_cal_point *point);

/* The pointwise bootstrap band of the fitted loss: for each point i,
 * log_lower[i] and log_upper[i] are the lower and upper quantiles (in
 * [0, 1], lower <= upper; 0.025 and 0.975 for the 95% band) of ln L̂ at
 * the point over the bootstrap's refits, each quantile as the parameters'
 * ci95 is taken (linear between the order statistics at q (B - 1)).
 * Memory: one double a refit, whatever the count of points; time: a few
 * evaluations a refit and a point.  HA_EINVAL for a NULL pointer, a point
 * out of its domain or bad quantiles; HA_EDEGENERATE when fewer than two
 * refits were fitted (no bootstrap); HA_ENOMEM.  On failure the outputs
 * are untouched. */
enum ha_status ha_cal_band(const struct ha_calibration *calibration,
                           const struct ha_cal_point *points,
                           size_t count, double lower, double upper,
                           double *log_lower, double *log_upper,
                           struct ha_error *err);

/* A calibration's work in run-fits, as HA_CAL_WORK_MAX (calibrate.h)
 * counts it. */
double ha_cal_work(size_t runs, const struct ha_cal_options *options);

/* HA_EINVAL when a calibration of `runs` runs under o would take more
 * than HA_CAL_WORK_MAX run-fits, the message in the words of every front
 * end ("6 runs with --bootstrap 1000000 and --compare need ..."). */
enum ha_status ha_cal_check_work(size_t runs, const struct ha_cal_options *o,
                                 struct ha_error *err);

/* The laws a calibration's comparison fits: HA_CAL_LADDER + law_count
 * when compare or law_count, else 0 (HA_CAL_WORK_MAX counts them). */
size_t ha_cal_work_laws(const struct ha_cal_options *options);

#endif
