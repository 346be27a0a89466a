/* The journal of a sweep's relaxed optima (see sweep_journal.h).
 *
 * In memory the values lie row by row.  In the file they lie in groups of
 * JOURNAL_BLOCK points: group k holds, budget after budget, one block of
 * each budget's values for points k*JOURNAL_BLOCK onwards.  The group being
 * filled stays in memory; a full group is written at once (one write
 * for every budget), and a block is read back with one read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/sweep_journal.h"

struct journal {
	size_t budgets, points;
	size_t put;            /* values put so far */
	size_t put_point, put_budget; /* where the next one goes (no division a value) */
	int kept;              /* 0 once values are lost */
	double *memory;        /* every value, row by row (memory journals) */
	int fd;                /* the temporary file (file journals), or -1 */
	double *group;         /* the group being filled, block by block */
	size_t groups_written; /* groups in the file */
	double *cache;         /* one block a budget, read back */
	size_t *cached;        /* the group of each budget's cached block + 1 */
};

/* An unlinked temporary file in $TMPDIR (else /tmp), or -1. */
static int temporary_file(void)
{
	static const char name[] = "/headalloc-journal-XXXXXX";
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	size_t length = strlen(dir);
	char *path = malloc(length + sizeof name);
	if (!path)
		return -1;
	memcpy(path, dir, length);
	memcpy(path + length, name, sizeof name);
	int fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static int write_all(int fd, const double *values, size_t count, off_t offset)
{
	const char *p = (const char *)values;
	size_t left = count * sizeof *values;
	while (left > 0) {
		ssize_t n = pwrite(fd, p, left, offset);
		if (n <= 0)
			return 0;
		p += n;
		left -= (size_t)n;
		offset += n;
	}
	return 1;
}

static int read_all(int fd, double *values, size_t count, off_t offset)
{
	char *p = (char *)values;
	size_t left = count * sizeof *values;
	while (left > 0) {
		ssize_t n = pread(fd, p, left, offset);
		if (n <= 0)
			return 0;
		p += n;
		left -= (size_t)n;
		offset += n;
	}
	return 1;
}

/* Give up keeping values: the caller solves again. */
static void lose(struct journal *j)
{
	j->kept = 0;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

enum ha_status journal_new(size_t budgets, size_t points, struct journal **out)
{
	*out = NULL;
	if (budgets == 0 || points > SIZE_MAX / budgets ||
	    budgets > SIZE_MAX / sizeof(double) / JOURNAL_BLOCK)
		return HA_ENOMEM;
	struct journal *j = calloc(1, sizeof *j);
	if (!j)
		return HA_ENOMEM;
	j->budgets = budgets;
	j->points = points;
	j->kept = 1;
	j->fd = -1;
	if (budgets * points <= JOURNAL_MEMORY_VALUES) {
		j->memory = malloc((budgets * points + 1) * sizeof *j->memory);
		if (!j->memory) {
			free(j);
			return HA_ENOMEM;
		}
		*out = j;
		return HA_OK;
	}
	j->group = malloc(budgets * JOURNAL_BLOCK * sizeof *j->group);
	j->cache = malloc(budgets * JOURNAL_BLOCK * sizeof *j->cache);
	j->cached = calloc(budgets, sizeof *j->cached);
	if (!j->group || !j->cache || !j->cached) {
		journal_free(j);
		return HA_ENOMEM;
	}
	j->fd = temporary_file();
	if (j->fd < 0)
		j->kept = 0;
	*out = j;
	return HA_OK;
}

void journal_free(struct journal *j)
{
	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j->memory);
	free(j->group);
	free(j->cache);
	free(j->cached);
	free(j);
}

int journal_kept(const struct journal *j)
{
	return j->kept;
}

static inline void put_one(struct journal *j, double value)
{
	if (!j->kept)
		return;
	if (j->memory) {
		j->memory[j->put++] = value;
		return;
	}
	size_t point = j->put_point, budget = j->put_budget;
	size_t in_block = point % JOURNAL_BLOCK;
	j->group[budget * JOURNAL_BLOCK + in_block] = value;
	j->put++;
	if (++j->put_budget == j->budgets) {
		j->put_budget = 0;
		j->put_point++;
	}
	if (budget + 1 == j->budgets && in_block + 1 == JOURNAL_BLOCK) {
		size_t values = j->budgets * JOURNAL_BLOCK;
		off_t offset = (off_t)(j->groups_written * values * sizeof(double));
		if (!write_all(j->fd, j->group, values, offset))
			lose(j);
		j->groups_written++;
	}
}

void journal_put_values(struct journal *j, const double *values, size_t count)
{
	if (j->kept && j->memory) {
		memcpy(j->memory + j->put, values, count * sizeof *values);
		j->put += count;
		return;
	}
	for (size_t c = 0; c < count; c++)
		put_one(j, values[c]);
}

/* Read budget b's block of `group` (written to the file) into its cache;
 * 0 when it cannot be read (then the journal is lost). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
static int load_block(struct journal *j, size_t b, size_t group)
{
	off_t offset = (off_t)((group * j->budgets + b) * JOURNAL_BLOCK *
	                       sizeof(double));
	if (!read_all(j->fd, j->cache + b * JOURNAL_BLOCK, JOURNAL_BLOCK, offset)) {
		lose(j);
		return 0;
	}
	j->cached[b] = group + 1;
	return 1;
}

enum ha_status journal_get_columns(struct journal *j, size_t first, size_t count,
                                   size_t point, double *values)
{
	if (!j->kept || count == 0 || first >= j->budgets ||
	    count > j->budgets - first || point >= j->points ||
	    point * j->budgets + first + count > j->put)
		return HA_EIO;
	if (j->memory) {
		memcpy(values, j->memory + point * j->budgets + first,
		       count * sizeof *values);
		return HA_OK;
	}
	size_t group = point / JOURNAL_BLOCK, in_block = point % JOURNAL_BLOCK;
	/* not written yet: still in the group being filled */
	const double *from = group < j->groups_written ? j->cache : j->group;
	for (size_t c = 0; c < count; c++) {
		size_t b = first + c;
		if (from == j->cache && j->cached[b] != group + 1 &&
		    !load_block(j, b, group))
			return HA_EIO;
		values[c] = from[b * JOURNAL_BLOCK + in_block];
	}
	return HA_OK;
}

enum ha_status journal_get(struct journal *j, size_t budget, size_t point,
                           double *value)
{
	return journal_get_columns(j, budget, 1, point, value);
}
