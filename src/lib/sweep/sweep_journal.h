/* The relaxed optima of a sweep, and the coordinates the fits took of
 * them, kept for the fits' second pass (library-internal; a sweep's
 * columns are in sweep_internal.h).
 *
 * The fits of headalloc-model(7), SCALING LAWS need every point twice: once for the line, once
 * for the largest residual and the directly summed squared residuals.
 * Solving every point again would double the cost of a sweep, and holding
 * the points would make its memory grow with its length; the journal
 * holds them in memory while they are few (up to JOURNAL_MEMORY_VALUES)
 * and in an unlinked temporary file beyond, so that a sweep's memory does
 * not grow with its rows and its cost per row does not jump at any size.
 *
 * Values are put row by row (point outer, budget inner, as the table is
 * solved) and read back by (budget, point) in any order; reading a budget's
 * points in order, or every budget of one point after another, costs one
 * block read per JOURNAL_BLOCK values.  When no temporary file can be
 * made, or it takes no more, the values are kept in memory; when that
 * memory cannot be had the journal keeps nothing and says so (the
 * sweep's result then fails). */
#ifndef HEADALLOC_SWEEP_JOURNAL_H
#define HEADALLOC_SWEEP_JOURNAL_H

#include <stddef.h>

#include <headalloc/status.h>

/* Values in one block: 4 KiB (fewer for fewer points). */
#define JOURNAL_BLOCK ((size_t)512)

/* Journals of up to this many values (1 MiB) stay in memory. */
#define JOURNAL_MEMORY_VALUES ((size_t)1 << 17)

struct journal;

/* A journal for budgets x points values.  HA_ENOMEM, or HA_OK with *out a
 * journal to free with journal_free (one that may keep nothing, see
 * journal_kept). */
enum ha_status journal_new(size_t budgets, size_t points, struct journal **out);

void journal_free(struct journal *j);

/* Put the next count values, in order (row by row; one call for a row's). */
void journal_put_values(struct journal *j, const double *values, size_t count);

/* 1 when every value put can be read back, 0 when the journal keeps
 * nothing (no temporary file could be made or written). */
int journal_kept(const struct journal *j);

/* The values put for budgets first .. first + count - 1 of one point,
 * into values[0 .. count): one call for a row's columns.  HA_EIO when
 * they cannot be read back (then journal_kept turns 0). */
enum ha_status journal_get(struct journal *j, size_t first, size_t count,
                           size_t point, double *values);

#endif
