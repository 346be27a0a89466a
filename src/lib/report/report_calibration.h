/* The calibration's report in two files (library-internal):
 * report_calibration.c writes the fit, its uncertainty and the
 * prediction, and calls report_calibration_laws.c for the comparison of
 * laws and the small helpers both use; the laws file calls nothing back. */
#ifndef HEADALLOC_REPORT_CALIBRATION_H
#define HEADALLOC_REPORT_CALIBRATION_H

#include <stdint.h>
#include <stdio.h>

#include <headalloc/calibrate.h>
#include "report/yaml_writer.h"

/* A value for YAML, or null when it is not defined. */
void report_cal_yaml_maybe(struct ha_yaml_writer *w, int defined, double v);

/* The keys heads and head_dim, or null values when not defined. */
void report_cal_yaml_pair(struct ha_yaml_writer *w, int defined,
                          uint64_t heads, uint64_t head_dim);

/* %.6g into buf, or "-" when not defined. */
const char *report_cal_maybe(int defined, double v, char buf[32]);

/* YAML key comparison: the laws, the verdict, the average over laws. */
void report_cal_yaml_comparison(struct ha_yaml_writer *w,
                                const struct ha_calibration *c);

/* The same for people: a table of laws, the verdict, the average. */
void report_cal_text_comparison(FILE *f, const struct ha_calibration *c);

#endif
