/* Numbers for people: the fixed precisions that keep text reports
 * reproducible across machines. */
#include <math.h>

#include <headalloc/model.h>

#include "report_internal.h"
#include "alloc/model_internal.h"

double report_log10(double log_value)
{
	return log_value / log(10.0);
}

const char *report_human(double v, char buf[32])
{
	if (isinf(v))
		snprintf(buf, 32, "inf");
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}

const char *report_human_samples(double log_n, char buf[32])
{
	double v = ha_exp_or_inf(log_n);
	if (isinf(log_n))
		snprintf(buf, 32, "inf");
	else if (isinf(v))
		snprintf(buf, 32, "10^%.6g", report_log10(log_n));
	else
		snprintf(buf, 32, "%.6g", v);
	return buf;
}
