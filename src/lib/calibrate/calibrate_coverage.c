/* What the bootstrap's 95% intervals were measured to hold
 * (headalloc-calibrate(1), COVERAGE): for each bootstrap kind, the
 * share of data sets drawn from a known law whose intervals held the
 * truth, on the designs of bench/calibrate_coverage.c (200 data sets of
 * B = 200 each, least squares, the lowest share over the free
 * parameters).  A calibration is compared with the measured design of
 * its kind and noise statement with the most spare runs (m - k) that it
 * has at least, or with the fewest when it has fewer than every design:
 * coverage grows with spare runs, so the design read errs towards
 * warning (and of two as near, the lower is read: runs10 and runs10-het
 * differ in noise the runs do not state).  Where that design's lowest
 * share lies more than 2 binomial standard deviations (of its
 * HA_CAL_COVERAGE_SETS data sets) below 0.95, the calibration warns: the
 * lowest of a design's three or four shares is itself low by chance, by
 * about one standard deviation at a true 95%, so a plain bar would warn
 * on designs whose intervals hold. */
#include <math.h>

#include "calibrate_internal.h"

struct measured {
	const char *design;
	enum ha_cal_bootstrap_kind kind;
	int unequal_se;  /* the runs state unequal loss_se / loss */
	size_t runs, free;
	double lowest;   /* the lowest share of the free parameters */
	enum ha_cal_param worst;
};

/* build/bench/headalloc-calibrate-coverage 200 200: the lowest share
 * over the free parameters (the first such in case of a tie). */
static const struct measured table[] = {
	{"runs7", HA_CAL_BOOT_CASES, 0, 7, 3, 0.860, HA_CAL_IRREDUCIBLE},
	{"runs10", HA_CAL_BOOT_CASES, 0, 10, 3, 0.915, HA_CAL_BIAS_COEF},
	{"runs10-se", HA_CAL_BOOT_CASES, 1, 10, 3, 0.935, HA_CAL_IRREDUCIBLE},
	{"runs10-het", HA_CAL_BOOT_CASES, 0, 10, 3, 0.920, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_CASES, 0, 24, 4, 0.910, HA_CAL_SMOOTHNESS},
	{"runs96", HA_CAL_BOOT_CASES, 0, 96, 4, 0.900, HA_CAL_VAR_COEF},
	{"runs7", HA_CAL_BOOT_RESIDUALS, 0, 7, 3, 0.855, HA_CAL_BIAS_COEF},
	{"runs10", HA_CAL_BOOT_RESIDUALS, 0, 10, 3, 0.905, HA_CAL_IRREDUCIBLE},
	{"runs10-se", HA_CAL_BOOT_RESIDUALS, 1, 10, 3, 0.885, HA_CAL_IRREDUCIBLE},
	{"runs10-het", HA_CAL_BOOT_RESIDUALS, 0, 10, 3, 0.855, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_RESIDUALS, 0, 24, 4, 0.910, HA_CAL_SMOOTHNESS},
	{"runs96", HA_CAL_BOOT_RESIDUALS, 0, 96, 4, 0.930, HA_CAL_IRREDUCIBLE},
	{"runs7", HA_CAL_BOOT_WILD, 0, 7, 3, 0.760, HA_CAL_VAR_COEF},
	{"runs10", HA_CAL_BOOT_WILD, 0, 10, 3, 0.785, HA_CAL_VAR_COEF},
	{"runs10-se", HA_CAL_BOOT_WILD, 1, 10, 3, 0.825, HA_CAL_VAR_COEF},
	{"runs10-het", HA_CAL_BOOT_WILD, 0, 10, 3, 0.865, HA_CAL_IRREDUCIBLE},
	{"runs24", HA_CAL_BOOT_WILD, 0, 24, 4, 0.855, HA_CAL_VAR_COEF},
	{"runs96", HA_CAL_BOOT_WILD, 0, 96, 4, 0.905, HA_CAL_VAR_COEF},
};

int cal_runs_unequal_se(const struct cal_data *data, const struct ha_run *runs)
{
	for (size_t i = 0; i < data->m; i++)
		if (!(runs[i].loss_se > 0.0))
			return 0;
	for (size_t i = 1; i < data->m; i++)
		if (fabs(data->inv_w[i] - data->inv_w[0]) > 1e-9 * data->inv_w[0])
			return 1;
	return 0;
}

static const struct measured *design_for(enum ha_cal_bootstrap_kind kind,
                                         int unequal_se, size_t spare)
{
	const struct measured *below = NULL, *fewest = NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct measured *t = &table[i];
		if (t->kind != kind || t->unequal_se != unequal_se)
			continue;
		size_t its = t->runs - t->free;
		if (!fewest || its < fewest->runs - fewest->free)
			fewest = t;
		size_t below_its = below ? below->runs - below->free : 0;
		/* of two designs as near, the one measured lower */
		if (its <= spare && (!below || its > below_its ||
		                     (its == below_its && t->lowest < below->lowest)))
			below = t;
	}
	return below ? below : fewest;
}

int cal_coverage_warning(struct ha_calibration *c, int unequal_se)
{
	const struct ha_cal_bootstrap *b = &c->bootstrap;
	size_t m = c->fit.runs, k = c->fit.free_count;
	if (b->fitted < 2 || k == 0)
		return 1; /* no interval */
	const struct measured *t = design_for(b->kind, unequal_se, m > k ? m - k : 0);
	if (!t)
		return 1;
	double sd = sqrt(t->lowest * (1.0 - t->lowest) / HA_CAL_COVERAGE_SETS);
	if (!(t->lowest + 2.0 * sd < 0.95))
		return 1;
	return cal_warn(c, HA_CAL_WARN_COVERAGE,
	            "the %s bootstrap's 95%% intervals held the truth in only "
	            "%.1f%% of data sets drawn from a known law on %s (%zu runs, "
	            "%zu free parameters; %s the lowest; headalloc-calibrate(1), "
	            "COVERAGE): with %zu runs and %zu free parameters here, read "
	            "them as narrower than 95%%",
	            b->kind == HA_CAL_BOOT_CASES ? "case"
	            : b->kind == HA_CAL_BOOT_WILD ? "wild" : "residual",
	            100.0 * t->lowest, t->design, t->runs, t->free,
	            ha_cal_param_str(t->worst), m, k);
}
