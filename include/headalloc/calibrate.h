/* headalloc — calibrating the error model on measured training runs
 * (headalloc-model(7), CALIBRATION).
 *
 * A run is (H, d, n, L[, se]).  The model of a measured loss is
 *
 *   L(H, d, n) = E + A n^-α + c_b d^-s
 *                + c_v d^(γd + κ) / n^β * (rho + (1 - rho)/H)
 *
 * and, for a run with G = kv_heads < H (groups of g = H/G query heads),
 * the grouped factor F = (1 + (g - 1) rho_g + (H - g) rho) / H,
 * rho_g = 1 - group_hdi, in place of rho + (1 - rho)/H (which it is at
 * G = H): eleven parameters (enum ha_cal_param), each free or fixed.  The
 * fit minimises the SUM over runs of the Huber loss of the log residuals
 *
 *   r_i = (ln L_i - ln L̂_i) / (se_i / L_i)     (/ 1 where se is absent)
 *   huber(r) = r^2/2 for |r| <= δ,  δ(|r| - δ/2) beyond   (δ = inf: r^2/2)
 *
 * from a grid of starting points (headalloc-model(7), CALIBRATION) with
 * NLopt's L-BFGS on analytic gradients, the parameters scaled by the
 * Gauss–Newton curvature of the start, then Levenberg–Marquardt on the
 * exact Huber loss of the linearised residuals to full precision.
 * Parameters are fitted on these scales ("fit scale"): E, ln c_b, s,
 * ln c_v, γ, κ, hdi, A, α, β, group_hdi (linear all but the two logs);
 * ln c_b and ln c_v are unbounded (their values may lie far beyond a
 * double: ln c_v ≈ -1598 is a real case), and the others are held in
 * their domains by box bounds: E >= 0, s >= HA_CAL_SMOOTHNESS_MIN,
 * γ >= 0, κ >= 0, 0 <= hdi, group_hdi <= 1, A >= 0,
 * α, β >= HA_CAL_POWER_MIN.  A free parameter that ends within 1e-8
 * (relative, or absolute below 1) of one of these bounds is reported
 * `at_bound`.  (E >= 0 where CALIBRATION (The parameters) says "real":
 * as n and d grow L -> E, so a negative E predicts a negative error, which
 * CALIBRATION rules out; the allocator's model rejects it likewise.)
 *
 * Uncertainty: Gauss–Newton standard errors (cov = σ^2 (J'J)^-1,
 * σ^2 = RSS/(m - k), J the Jacobian of the residuals r_i in fit scale)
 * where m > k and J has full rank; and a seeded bootstrap (cases,
 * residuals or wild; one random stream per resample) giving percentile
 * 95% intervals and the distribution of the optimal allocation at a
 * target.  Each resample is refitted by Levenberg–Marquardt alone from
 * the grid and from the full data's optimum, at most 100 steps a start:
 * where a resample's optimum lies far along a direction its runs hardly
 * determine, the refit stops still improving; such refits are counted
 * (`unconverged`) and warned about, and their last values stay in the
 * intervals.
 *
 * Residuals, RSS and AICc: `residual` is ln L - ln L̂; `standardised` is
 * it divided by se/L (= residual without se); rss sums the squared
 * standardised residuals, rms is sqrt(mean residual^2); the objective is
 * the Huber sum of the standardised ones.  A quantity that is not
 * defined (an AICc with m - k - 1 <= 0, an SE without full rank) has a
 * flag beside it and its double is 0, never NaN or inf. */
#ifndef HEADALLOC_CALIBRATE_H
#define HEADALLOC_CALIBRATE_H

#include "export.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "progress.h"
#include "runs.h"
#include "solver.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The parameters of headalloc-model(7), CALIBRATION (The parameters), in
 * this order everywhere. */
enum ha_cal_param {
	HA_CAL_IRREDUCIBLE = 0, /* "irreducible": E (fit scale: E) */
	HA_CAL_BIAS_COEF = 1,   /* "bias_coef": c_b (fit scale: ln c_b) */
	HA_CAL_SMOOTHNESS = 2,  /* "smoothness": s */
	HA_CAL_VAR_COEF = 3,    /* "var_coef": c_v (fit scale: ln c_v) */
	HA_CAL_VAR_RATE = 4,    /* "var_rate": γ */
	HA_CAL_VAR_POWER = 5,   /* "var_power": κ */
	HA_CAL_HDI = 6,         /* "hdi" */
	HA_CAL_DATA_COEF = 7,   /* "data_coef": A of the data term A n^-α */
	HA_CAL_DATA_POWER = 8,  /* "data_power": α */
	HA_CAL_VAR_SAMPLES_POWER = 9, /* "var_samples_power": β */
	HA_CAL_GROUP_HDI = 10   /* "group_hdi": diversity inside a key/value
	                           group, in [0, 1] (runs with kv_heads < heads) */
};
#define HA_CAL_PARAMS 11

/* The smallest smoothness a fit may reach (the domain is s > 0). */
#define HA_CAL_SMOOTHNESS_MIN 1e-6
/* The smallest α and β a fit may reach (their domain is > 0). */
#define HA_CAL_POWER_MIN 1e-6

/* Defaults of struct ha_cal_options. */
/* Least squares: Huber's δ on request (headalloc-calibrate(1),
 * --huber-delta), since a fixed δ is in the units of the residuals and
 * one scaled to the runs is least squares on all but a few of them. */
#define HA_CAL_HUBER_DEFAULT INFINITY
#define HA_CAL_BOOTSTRAP_DEFAULT ((size_t)1000)
#define HA_CAL_COLLINEAR_DEFAULT 0.99

/* Capacity of the names and messages below, with the terminating NUL. */
#define HA_CAL_NAME_MAX 32
#define HA_CAL_MESSAGE_MAX HA_ERROR_MESSAGE_MAX

/* The laws of the comparison of headalloc-model(7), CALIBRATION (Comparing laws) (ha_cal_ladder). */
#define HA_CAL_LADDER 7
/* At most this many laws of the user's (ha_cal_options.laws) besides. */
#define HA_CAL_USER_LAWS_MAX 16
#define HA_CAL_COMPARE_MAX (HA_CAL_LADDER + HA_CAL_USER_LAWS_MAX)
/* Laws within this AICc of the best are not told apart by the data
 * (the verdict of ha_cal_verdict). */
#define HA_CAL_VERDICT_AICC 2.0
/* The comparison's bootstrap refits at most this many resamples a law
 * (each from the law's full grid of starts). */
#define HA_CAL_COMPARE_RESAMPLES ((size_t)50)

/* The parameter's name in files and options ("irreducible", "bias_coef",
 * ...); NULL for an out-of-range value. */
HA_API const char *ha_cal_param_str(enum ha_cal_param param);

struct ha_cal_estimate;

/* One measured training run: struct ha_run, in runs.h with the readers of
 * runs files. */

/* A law: which parameters a fit moves, and the values of the others. */
struct ha_cal_law {
	char name[HA_CAL_NAME_MAX];  /* for the comparison table; may be "" */
	int free[HA_CAL_PARAMS];     /* 1: fitted, 0: fixed at value[] */
	double value[HA_CAL_PARAMS]; /* fit scale (ln c for the coefficients) */
};

/* The model of fit-scale values (each coefficient held as its ln c,
 * exactly). */
HA_API struct ha_model ha_cal_model_of(const double value[HA_CAL_PARAMS]);

/* The ladder of headalloc-model(7), CALIBRATION (Comparing laws), each rung from `base` (its fixed values
 * and its free hdi, if any), in this order:
 *   "seeds"       E, c_b, c_v free; s = 2, γ = 1/2, κ = 0
 *   "smoothness"  E, c_b, s, c_v free; γ = 1/2, κ = 0
 *   "power_s2"    E, c_b, c_v, κ free; s = 2, γ = 0 (k = 4)
 *   "power"       E, c_b, s, c_v, κ free; γ = 0 (variance a power of d)
 *   "rate"        E, c_b, s, c_v, γ free; κ = 0
 *   "seeds+data"  "seeds" with the data term's A and α free
 *   "power+data"  "power" with A and α free
 * hdi is free in every rung exactly when it is free in base (else fixed
 * at base's value); β, and A and α in the rungs without the data term,
 * keep base's values (A = 0 by default).  Returns HA_CAL_LADDER.  The
 * rungs are one table in calibrate_compare.c.  The comparison fits the
 * data rungs only when the runs hold at least 3 distinct sample sizes (E,
 * A and α cannot be told apart on fewer); on fewer they are reported as
 * not fitted, with the reason. */
HA_API size_t ha_cal_ladder(const struct ha_cal_law *base,
                            struct ha_cal_law out[HA_CAL_LADDER]);

/* What a bootstrap resamples (headalloc-model(7), CALIBRATION
 * (Uncertainty and identifiability)): the runs (cases); the fitted
 * curve plus modified log residuals drawn from their centred pool
 * (residuals); or plus each run's own modified residual times a random
 * sign (wild: noise that differs between runs beyond their loss_se). */
enum ha_cal_bootstrap_kind {
	HA_CAL_BOOT_CASES = 0,
	HA_CAL_BOOT_RESIDUALS = 1,
	HA_CAL_BOOT_WILD = 2
};

/* Where to predict the optimal allocation. */
struct ha_cal_target {
	uint64_t budget; /* D; 0 = no target (no prediction) */
	double samples;  /* n > 1 */
	struct ha_constraints constraints;
};

struct ha_cal_options {
	struct ha_cal_law law;      /* the main fit */
	double huber_delta;         /* δ > 0; INFINITY = least squares */
	size_t bootstrap;           /* B resamples; 0 = no bootstrap */
	uint64_t seed;              /* of the bootstrap's streams (one a resample) */
	int compare;                /* 1: fit the ladder of laws as well */
	double collinear;           /* warn when |correlation| >= this */
	struct ha_cal_target target;
	/* the bootstrap's kind and degeneracy (see the block at the end) */
	enum ha_cal_bootstrap_kind bootstrap_kind; /* cases (default), residuals or wild */
	size_t threads;             /* bootstrap refits, full fits' starts, leave-one-out, the calling
	                               thread one of them: 0 = one per online processor; 1 = the
	                               calling thread alone; N = N threads; at most 8 (as a sweep's) */
	/* Told during the main fit ("fits", 0 of 1, between its starts),
	 * of the resamples done of B ("resamples"), then with compare of
	 * the laws fitted ("laws", told again between a law's stages and
	 * starts) and of the comparison's resamples; always from the
	 * calling thread; a non-zero return cancels with HA_ECANCELED. */
	struct ha_progress progress;
	/* The user's laws, fitted in the comparison after the ladder
	 * (compare = 1 then): each a distinct name, none a rung's, with its
	 * free set; the parameters it fixes keep the values of `law`.  At
	 * most HA_CAL_USER_LAWS_MAX; NULL / 0 for none. */
	const struct ha_cal_law *laws;
	size_t law_count;
	/* The comparison's bootstrap refits min(bootstrap, this) resamples
	 * a law; 0 = HA_CAL_COMPARE_RESAMPLES (headalloc plan asks for more
	 * to sample the posterior; calibrate keeps the default). */
	size_t compare_resamples;
	/* 1: the comparison makes only what the laws' least-squares fits,
	 * weights and refits need, for a caller that reads nothing else
	 * (headalloc plan): no leave-one-out refits (each row's loo_defined
	 * is 0) and no Huber fit beside the least-squares one (each row's
	 * huber_status is HA_EDEGENERATE unless δ is infinite); 0 (default):
	 * the whole comparison. */
	int compare_lean;
};

/* law: the seeds' model with E, c_b, s, c_v free (the "smoothness" rung),
 * γ = 1/2, κ = 0, hdi = 1 fixed; huber_delta inf (least squares);
 * bootstrap 1000; seed 1;
 * compare 1; collinear 0.99; no target. */
HA_API void ha_cal_options_defaults(struct ha_cal_options *options);

/* One parameter's estimate.  value, se and ci95 are in fit scale (ln c for
 * bias_coef and var_coef: log_scale = 1). */
struct ha_cal_estimate {
	const char *name; /* static: ha_cal_param_str() */
	int free;
	int log_scale;
	double value;
	int has_se;       /* 0 for a fixed parameter, or no full-rank Jacobian */
	double se;
	int has_ci;       /* 0 for a fixed parameter or no bootstrap refit */
	double ci95[2];   /* bootstrap percentile interval [2.5%, 97.5%] */
	int at_bound;     /* a free parameter ended on a bound of its domain */
};

/* One run against its fitted value. */
struct ha_cal_residual {
	uint64_t heads;
	uint64_t head_dim;
	double samples;
	double loss;
	double loss_se;      /* the run's standard error of L; NaN if absent */
	double fitted;       /* L̂ (+inf beyond a double) */
	double log_fitted;   /* ln L̂ */
	double residual;     /* ln L - ln L̂ */
	double standardised; /* residual / (se/L); = residual without se */
};

/* A fit of one law. */
struct ha_cal_fit {
	struct ha_cal_law law;   /* as fitted: value[] holds the estimates */
	size_t runs;             /* m */
	size_t free_count;       /* k */
	double huber_delta;
	double objective;        /* sum of Huber losses of the standardised residuals */
	double rss;              /* sum of squared standardised residuals */
	double rms;              /* sqrt(mean of squared log residuals) */
	int aicc_defined;        /* 0 when m - k - 1 <= 0 or rss = 0 */
	double aicc;             /* m ln(rss/m) + 2k + 2k(k+1)/(m-k-1) */
	int bic_defined;         /* 0 when rss = 0 */
	double bic;              /* m ln(rss/m) + k ln m */
	size_t starts;           /* local optimisations run */
	size_t reached_best;     /* of them, ended within 1e-9 (relative) of the
	                            best, plus 1e-24 a run for fits that reach
	                            zero residuals */
	struct ha_cal_estimate param[HA_CAL_PARAMS];
	int has_covariance;      /* else no_covariance says why */
	char no_covariance[HA_CAL_MESSAGE_MAX];
	/* Gauss–Newton covariance and correlation in fit scale; rows and
	 * columns of fixed parameters are 0. */
	double covariance[HA_CAL_PARAMS][HA_CAL_PARAMS];
	double correlation[HA_CAL_PARAMS][HA_CAL_PARAMS];
	struct ha_cal_residual *residuals; /* m of them, in the runs' order */
};

/* The share of bootstrap resamples whose optimum at the target is one
 * allocation. */
struct ha_cal_share {
	uint64_t heads;
	uint64_t head_dim;
	size_t count;
	double share; /* count / bootstrap.resamples (all B: no_answer_share is the rest) */
};

/* ---- is the prediction supported? ---------------------------------------
 * headalloc-model(7), CALIBRATION (The answer). */
struct ha_cal_support {
	int inside_measured_head_dims; /* lo <= head_dim <= hi */
	uint64_t measured_head_dims[2]; /* the runs' smallest and largest d */
	int has_runner_up;             /* another feasible allocation exists */
	uint64_t runner_heads, runner_head_dim;
	double loss_gap;               /* L̂(runner-up) - L̂(optimum) >= 0 */
	int has_probability;           /* bootstrap refits were made */
	double probability_better;     /* of refits with an answer: runner-up lower */
	double noise;                  /* rms loss_se (all runs have one), else rms x L̂ */
	int noise_from_se;
	int has_best_measured;         /* a run at the target's D and n */
	uint64_t best_heads, best_head_dim;
	double best_loss;
	int beats_best_measured;       /* L̂ < best_loss (only with a best run) */
	/* Free parameters the runs do not identify (se above |value|, or no
	 * se) whose 95% interval moves the argmin when the parameter is held
	 * at either end and the others refitted. */
	int unidentified[HA_CAL_PARAMS];
	size_t unidentified_count;
};

struct ha_cal_prediction {
	int defined;        /* 0: no target */
	uint64_t budget;
	double samples;
	struct ha_constraints constraints; /* the target's */
	uint64_t heads;     /* the optimum under the calibrated model */
	uint64_t head_dim;
	double loss;        /* its predicted loss L̂ (+inf beyond a double) */
	double log_loss;    /* ln L̂; -inf if a negative E makes L̂ <= 0 */
	struct ha_certificate certificate;
	/* The bootstrap distribution, most frequent first (ties: smaller
	 * head_dim first); NULL / 0 without bootstrap. */
	struct ha_cal_share *distribution;
	size_t distribution_count;
	/* resamples with no optimum (unfittable, failed, or no
	 * allocation) over all B; and whether the data back the answer. */
	double no_answer_share;
	struct ha_cal_support support;
};

struct ha_cal_bootstrap {
	size_t resamples;  /* B */
	uint64_t seed;
	size_t fitted;     /* refitted resamples: the intervals rest on these */
	size_t unconverged; /* of them, stopped by the refit's step cap while
	                       still improving (kept: see the warning) */
	size_t unfittable; /* fewer distinct runs than k + 1, or one distinct d */
	size_t failed;     /* refits with no finite optimum */
	size_t predicted;  /* fitted resamples with an optimum at the target */
	enum ha_cal_bootstrap_kind kind;
	size_t distinct;   /* distinct configurations (H, d, n) of the runs */
	size_t covering;   /* fitted case resamples holding every distinct configuration */
	int degenerate;    /* headalloc-model(7): the resamples cannot vary the fit */
	/* The refits' parameters, fitted rows of HA_CAL_PARAMS fit-scale
	 * values (the law's value[] order) in the order they were drawn;
	 * NULL when none was fitted.  56 bytes a refit, which the bootstrap
	 * held anyway while it ran: the curves' bands (ha_cal_band) are
	 * computed from them. */
	double *refits;
};

/* One law of the comparison (headalloc-model(7), CALIBRATION (Comparing laws)).
 * The criteria rest on the least-squares likelihood: law, rss, aicc, bic,
 * loo_rmse and the prediction are those of the law's least-squares fit
 * (δ = inf), whatever the calibration's δ; huber_* is the law under the
 * calibration's δ beside it. */
struct ha_cal_comparison {
	struct ha_cal_law law;   /* value[] holds the fitted values when fitted */
	size_t free_count;       /* k */
	enum ha_status status;   /* HA_OK, or why it was not fitted ... */
	char message[HA_CAL_MESSAGE_MAX]; /* ... in words ("" when fitted) */
	double objective;
	double rss;
	int aicc_defined;
	double aicc;
	int bic_defined;
	double bic;
	int loo_defined;         /* 0 when a leave-one-out set cannot be fitted */
	double loo_rmse;         /* sqrt(mean (ln L_i - ln L̂_(-i)(run i))^2) */
	size_t loo_unconverged;  /* leave-one-out refits stopped by their step cap */
	int has_prediction;      /* a target was given and solved */
	uint64_t heads;
	uint64_t head_dim;
	double loss;
	/* ---- nesting, weights, the Huber fit, the law's bootstrap ---- */
	int user;                /* one of ha_cal_options.laws, not a rung */
	size_t contains[HA_CAL_COMPARE_MAX]; /* rows this law contains */
	size_t contains_count;               /* (itself excluded) */
	int weight_defined;      /* its AICc is defined */
	double weight;           /* Akaike weight over the rows with an AICc */
	double delta_aicc;       /* aicc - the smallest aicc */
	enum ha_status huber_status;   /* the fit under the calibration's δ */
	double huber_objective;
	int huber_has_prediction;
	uint64_t huber_heads;
	uint64_t huber_head_dim;
	int prediction_changes;  /* both predictions exist and differ */
	/* The law's bootstrap (least squares): resamples drawn, the share
	 * of them (unfittable ones in the denominator) whose optimum is
	 * (heads, head_dim), and the whole distribution, most frequent
	 * first; share over `resamples` of each entry. */
	size_t resamples;
	size_t answered;         /* resamples refitted with an optimum */
	double share;
	struct ha_cal_share *distribution;
	size_t distribution_count;
	/* The law's refits, rows of HA_CAL_PARAMS fit-scale values in
	 * resample order, one a resample the law refitted (with or without
	 * an optimum at the target); NULL / 0 for none.  The samples of the
	 * model-averaged posterior headalloc plan draws from. */
	double *refits;
	size_t refit_count;
};

/* The verdict between the laws (least-squares AICc): the best law, and
 * the laws within HA_CAL_VERDICT_AICC of it, which the data cannot tell
 * apart from it. */
struct ha_cal_verdict {
	int defined;             /* 0: fewer than two laws have an AICc */
	size_t best;             /* row of the smallest AICc */
	size_t tied[HA_CAL_COMPARE_MAX]; /* rows within HA_CAL_VERDICT_AICC */
	size_t tied_count;
	double delta;            /* largest ΔAICc among tied, or (none tied)
	                            the ΔAICc of the runner-up */
	size_t runner_up;        /* the row of the second smallest AICc */
	char text[HA_CAL_MESSAGE_MAX]; /* in words, always set */
};

/* The main law fitted by least squares beside the Huber fit (defined
 * when δ is finite): whether the prediction changes, and whether δ lies
 * below the residual scale (most runs on the linear arms: an L1 fit). */
struct ha_cal_least_squares {
	int defined;
	double rss;              /* at the least-squares optimum */
	double residual_scale;   /* sqrt(rss / m), standardised residuals */
	int delta_below_scale;   /* δ < residual_scale */
	int has_prediction;
	uint64_t heads;
	uint64_t head_dim;
	int prediction_changes;  /* both predictions exist and differ */
};

enum ha_cal_warning_kind {
	HA_CAL_WARN_ONE_SAMPLES = 1,   /* every run has the same n */
	HA_CAL_WARN_COLLINEAR = 2,     /* two parameters nearly collinear */
	HA_CAL_WARN_BUDGET_OUTSIDE = 3, /* target D outside the runs' range */
	HA_CAL_WARN_SAMPLES_OUTSIDE = 4, /* target n outside the runs' range */
	HA_CAL_WARN_NO_COVARIANCE = 5, /* no standard errors, and why */
	HA_CAL_WARN_UNFITTABLE = 6,    /* bootstrap resamples that could not be fitted */
	HA_CAL_WARN_AT_BOUND = 7,      /* a parameter ended on a bound */
	HA_CAL_WARN_UNCONVERGED = 8,   /* bootstrap refits stopped by their step cap */
	HA_CAL_WARN_DEGENERATE = 9,    /* the bootstrap cannot vary the fit */
	HA_CAL_WARN_LACK_OF_FIT = 10,  /* the law misfits the runs */
	HA_CAL_WARN_UNSUPPORTED = 11,  /* a check of the prediction's support failed */
	HA_CAL_WARN_COVERAGE = 12,     /* the kind's intervals were measured to
	                                  fall short of 95% on a design like
	                                  the runs' (HA_CAL_COVERAGE_SETS) */
	/* calladder */
	HA_CAL_WARN_HUBER_SCALE = 20,  /* δ below the residual scale */
	HA_CAL_WARN_LEAST_SQUARES = 21 /* least squares predicts otherwise */
};

/* A bootstrap kind's 95% intervals are said to fall short on a measured
 * design (headalloc-calibrate(1), COVERAGE) when the design's lowest
 * share lies more than 2 binomial standard deviations of its
 * HA_CAL_COVERAGE_SETS data sets below 0.95: a shortfall the
 * measurement cannot put down to its own sampling. */
#define HA_CAL_COVERAGE_SETS 200

struct ha_cal_warning {
	enum ha_cal_warning_kind kind;
	char message[HA_CAL_MESSAGE_MAX];
};

/* ---- goodness of fit ----------------------------------------------
 * headalloc-model(7), CALIBRATION (Goodness of fit).  chi2 = the rss of
 * the standardised residuals, dof = m - k, p_value = Q(chi2 | dof), all
 * only when every run has a loss_se (and dof > 0 for p).  Verdict: lack
 * of fit when p_value < HA_CAL_LACK_OF_FIT_P, or (no p) when the rms log
 * residual exceeds HA_CAL_LACK_OF_FIT_RATIO x the loss spread (the
 * standard deviation of ln L over the runs). */
#define HA_CAL_LACK_OF_FIT_P 0.01
#define HA_CAL_LACK_OF_FIT_RATIO 0.5
struct ha_cal_goodness {
	double rms_log_residual;
	double loss_spread;
	int has_chi2;
	double chi2;
	size_t dof;
	int has_p;
	double p_value;
	int lack_of_fit;
};

struct ha_calibration {
	struct ha_cal_fit fit;
	/* The calibrated model, usable by the allocator at n = samples: the
	 * target's n, or without a target the largest n of the runs. */
	struct ha_model model;
	double samples;
	struct ha_cal_bootstrap bootstrap;
	struct ha_cal_prediction prediction;
	struct ha_cal_comparison *comparison; /* the ladder, then the user's
	                                         laws; or NULL */
	size_t comparison_count;
	struct ha_cal_verdict verdict;        /* with a comparison */
	/* The model-averaged distribution of the optimum at the target:
	 * each law's bootstrap distribution weighted by its Akaike weight
	 * (a law without a bootstrap: its point prediction), most frequent
	 * first; averaged_no_answer the weighted share of no answer. */
	struct ha_cal_share *averaged;
	size_t averaged_count;
	double averaged_no_answer;
	struct ha_cal_least_squares least_squares;
	struct ha_cal_warning *warnings;
	size_t warning_count;
	struct ha_cal_goodness goodness;
};

/* The whole of headalloc-model(7), CALIBRATION: fit, uncertainty, prediction, comparison
 * and warnings.  The main fit's refusals and errors:
 * HA_EDEGENERATE (with a message) for fewer runs than free parameters +
 * 1 or a single distinct head_dim while anything is free; HA_EINVAL for
 * a run out of its domain (the message names the run and the field), a
 * NULL pointer, or a fixed value out of its domain; HA_ENUMERIC when no
 * start reaches a finite objective; HA_ENOMEM; besides, HA_EINVAL for bad options (message names the
 * option) and HA_EINFEASIBLE when the target's constraints leave no
 * allocation.  A comparison law that cannot be fitted is a row with its
 * status, not an error.  On HA_OK *out is a new result to free with
 * ha_calibration_free(); on error *out is NULL and err says why. */
HA_API enum ha_status ha_calibrate(const struct ha_run *runs, size_t count,
                                   const struct ha_cal_options *options,
                                   struct ha_calibration **out,
                                   struct ha_error *err);

/* NULL is accepted. */
HA_API void ha_calibration_free(struct ha_calibration *calibration);

/* ---- the fitted curves ------------------------------------------------------
 * A point of a curve: H = budget / head_dim heads of dimension head_dim at
 * n = samples.  head_dim is real (a curve runs between the divisors; at a
 * divisor it is the allocation's loss), 1 <= head_dim <= budget. */
struct ha_cal_point {
	double budget;   /* D >= 1, finite */
	double head_dim; /* d in [1, D] */
	double samples;  /* n > 1, finite */
};

/* ---- the joint work limit --------------------------------------------------
 * A calibration's work in run-fits, counting only the fits that will run:
 * runs x (1 + B + laws x (runs + 1 + min(B, HA_CAL_COMPARE_RESAMPLES))):
 * the main fit, its B bootstrap refits and, for each law of the comparison
 * (ha_cal_work_laws: HA_CAL_LADDER + law_count when compare or law_count,
 * else none), its fit, its leave-one-out refits and its share of the
 * comparison's resamples.  ha_calibrate refuses more than HA_CAL_WORK_MAX
 * (HA_EINVAL) before any work. */
#define HA_CAL_WORK_MAX 2000000.0

#ifdef __cplusplus
}
#endif
#endif
