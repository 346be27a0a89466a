/* The journal of a sweep's relaxed optima (see sweep_internal.h).
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

#include "sweep/sweep_internal.h"

struct journal {
	size_t budgets, points;
	size_t block;          /* points a block: JOURNAL_BLOCK, or fewer */
	size_t put;            /* values put so far */
	size_t put_in_block, put_budget; /* where the next one goes (no division a value) */
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

/* Write (writing) or read count values at offset, whole; 0 when the file
 * takes or gives no more. */
static int transfer(int fd, double *values, size_t count, off_t offset,
                    int writing)
{
	char *p = (char *)values;
	size_t left = count * sizeof *values;
	while (left > 0) {
		ssize_t n = writing ? pwrite(fd, p, left, offset) : pread(fd, p, left, offset);
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
	j->block = points < JOURNAL_BLOCK ? points : JOURNAL_BLOCK;
	size_t values = budgets * points;
	/* A file's group and cache would take as much as the values. */
	if (values > JOURNAL_MEMORY_VALUES && values > 2 * budgets * j->block)
		j->fd = temporary_file();
	if (j->fd < 0) {
		/* Few values, or no file: all of them in memory. */
		j->memory = malloc((values + 1) * sizeof *j->memory);
		if (!j->memory)
			j->kept = 0;
		*out = j;
		return HA_OK;
	}
	j->group = malloc(budgets * j->block * sizeof *j->group);
	j->cache = malloc(budgets * j->block * sizeof *j->cache);
	j->cached = calloc(budgets, sizeof *j->cached);
	if (!j->group || !j->cache || !j->cached) {
		journal_free(j);
		return HA_ENOMEM;
	}
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

/* Group g's values, block by block, into memory's rows. */
static void group_to_rows(const struct journal *j, const double *group, size_t g,
                          double *memory)
{
	for (size_t b = 0; b < j->budgets; b++)
		for (size_t k = 0; k < j->block; k++)
			memory[(g * j->block + k) * j->budgets + b] = group[b * j->block + k];
}

/* The file cannot take the full group being filled (no room, a size
 * limit): every value put goes to memory, the groups written read back,
 * and the journal goes on there; else it keeps nothing. */
static void move_to_memory(struct journal *j)
{
	double *memory = malloc((j->budgets * j->points + 1) * sizeof *memory);
	size_t values = j->budgets * j->block;
	for (size_t g = 0; memory && g < j->groups_written; g++) {
		off_t offset = (off_t)(g * values * sizeof(double));
		if (!transfer(j->fd, j->cache, values, offset, 0)) {
			free(memory);
			memory = NULL;
			break;
		}
		group_to_rows(j, j->cache, g, memory);
	}
	if (!memory) {
		lose(j);
		return;
	}
	group_to_rows(j, j->group, j->groups_written, memory);
	close(j->fd);
	j->fd = -1;
	free(j->group);
	free(j->cache);
	free(j->cached);
	j->group = j->cache = NULL;
	j->cached = NULL;
	j->memory = memory;
}

/* A full group into the file. */
static void write_group(struct journal *j)
{
	size_t values = j->budgets * j->block;
	off_t offset = (off_t)(j->groups_written * values * sizeof(double));
	if (!transfer(j->fd, j->group, values, offset, 1))
		move_to_memory(j);
	else
		j->groups_written++;
}

void journal_put_values(struct journal *j, const double *values, size_t count)
{
	if (!j->kept)
		return;
	if (j->memory) {
		memcpy(j->memory + j->put, values, count * sizeof *values);
		j->put += count;
		return;
	}
	while (count > 0 && j->kept && !j->memory) {
		size_t room = j->budgets - j->put_budget;
		size_t n = count < room ? count : room;
		double *to = j->group + j->put_budget * j->block + j->put_in_block;
		for (size_t c = 0; c < n; c++)
			to[c * j->block] = values[c];
		j->put += n;
		j->put_budget += n;
		values += n;
		count -= n;
		if (j->put_budget < j->budgets)
			continue;
		j->put_budget = 0;
		if (++j->put_in_block == j->block) {
			j->put_in_block = 0;
			write_group(j);
		}
	}
	if (count > 0 && j->kept)
		journal_put_values(j, values, count); /* moved to memory */
}

/* Read budget b's block of `group` (written to the file) into its cache;
 * 0 when it cannot be read (then the journal is lost). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline, cold))
#endif
static int load_block(struct journal *j, size_t b, size_t group)
{
	off_t offset = (off_t)((group * j->budgets + b) * j->block *
	                       sizeof(double));
	if (!transfer(j->fd, j->cache + b * j->block, j->block, offset, 0)) {
		lose(j);
		return 0;
	}
	j->cached[b] = group + 1;
	return 1;
}

enum ha_status journal_get(struct journal *j, size_t first, size_t count,
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
	size_t group = point / j->block, in_block = point % j->block;
	/* not written yet: still in the group being filled */
	const double *from = group < j->groups_written ? j->cache : j->group;
	for (size_t c = 0; c < count; c++) {
		size_t b = first + c;
		if (from == j->cache && j->cached[b] != group + 1 &&
		    !load_block(j, b, group))
			return HA_EIO;
		values[c] = from[b * j->block + in_block];
	}
	return HA_OK;
}
