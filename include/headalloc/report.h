/* headalloc — reports of a solved allocation, for people (text) and for
 * machines (YAML).  Writers write only to the stream they are given. */
#ifndef HEADALLOC_REPORT_H
#define HEADALLOC_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"
#include "solver.h"
#include "status.h"
#include "yaml_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the keys of one solved allocation into an open YAML map:
 * budget, samples, model, optimum, relaxed, certificate and, when
 * candidates is not NULL, candidates (count rows, in the given order). */
void ha_report_yaml_solution(struct ha_yaml_writer *w,
                             const struct ha_model *model,
                             const struct ha_solution *solution,
                             const struct ha_allocation *candidates,
                             size_t count);

/* The same for people: the optimum, the relaxed optimum, the error split,
 * the certificate and, when candidates is not NULL, an aligned table.
 * HA_EIO when writing fails. */
enum ha_status ha_report_text_solution(FILE *stream,
                                       const struct ha_model *model,
                                       const struct ha_solution *solution,
                                       const struct ha_allocation *candidates,
                                       size_t count);

#ifdef __cplusplus
}
#endif
#endif
