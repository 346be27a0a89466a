#define _DEFAULT_SOURCE /* wait4, mkdtemp */
/* headalloc-limits — every documented limit of headalloc(1), LIMITS, run
 * at the limit: wall time and peak memory of the CLI on an input built
 * here that reaches it, beside the input's size.  A limit that does not
 * run in seconds, in memory proportional to its input, is to be lowered.
 *
 *   headalloc-limits [--quick] [--cli PATH]
 *
 * --quick skips the slowest case (the largest hdi tensor).  Inputs are
 * written to a temporary directory, removed at the end. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <headalloc/headalloc.h>
#include "alloc/solver_internal.h"

static char dir[64];

static const char *path_of(const char *name)
{
	static char buf[8][160];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, 160, "%s/%s", dir, name);
	return p;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double file_mb(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0.0;
}

/* Run the CLI with args (NULL-terminated, argv[0] excluded), output to
 * /dev/null, and print one row: the limit, the input, time, peak RSS. */
static void run(const char *cli, const char *limit, const char *input,
                double input_mb, char *const *args)
{
	char *argv[32];
	size_t n = 0;
	argv[n++] = (char *)cli;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(stdout); /* or the child prints what is buffered again */
	double start = now();
	pid_t pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(126);
		execv(cli, argv);
		_exit(127);
	}
	int status;
	struct rusage usage;
	if (wait4(pid, &status, 0, &usage) < 0)
		return;
	double seconds = now() - start;
	int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	printf("%-34s %-40s %9.3f %8.2f %9.1f %4d\n", limit, input, input_mb,
	       seconds, (double)usage.ru_maxrss / 1024.0, exit_status);
	fflush(stdout);
}

/* ---- inputs -------------------------------------------------------------- */

static void scenario_budgets(const char *path, size_t count)
{
	FILE *f = fopen(path, "w");
	fputs("budgets: [", f);
	for (size_t i = 1; i <= count; i++)
		fprintf(f, "%zu%s", i, i < count ? ", " : "]\n");
	fputs("samples: 1e8\n", f);
	fclose(f);
}

static void scenario_samples(const char *path, size_t count)
{
	FILE *f = fopen(path, "w");
	fputs("budgets: [512]\nsamples: [", f);
	for (size_t i = 0; i < count; i++)
		fprintf(f, "%.10g%s", 1e4 * (1.0 + (double)i), i + 1 < count ? ", " : "]\n");
	fclose(f);
}

static void scenario_models(const char *path, size_t count)
{
	FILE *f = fopen(path, "w");
	fputs("models:\n", f);
	for (size_t i = 0; i < count; i++)
		fprintf(f, "  - {name: 'm%zu', heads: %zu, head_dim: 64, samples: 1e9}\n",
		        i, 1 + i % 128);
	fclose(f);
}

/* Distinct divisor-rich budgets, B / d for d = 1, 2, ... while their
 * divisors stay within HA_SCENARIO_MAX_DIVISORS, as a --budget list. */
static char *rich_budgets(size_t *count, uint64_t *divisors)
{
	const uint64_t b = UINT64_C(9200527969062830400);
	char *list = malloc(64 * 1000);
	size_t used = 0;
	*count = 0;
	*divisors = 0;
	for (uint64_t d = 1; d < 1000; d++) {
		uint64_t n = ha_divisor_count(b / d);
		if (*divisors + n > HA_SCENARIO_MAX_DIVISORS)
			break;
		*divisors += n;
		used += (size_t)sprintf(list + used, "%s%" PRIu64, *count ? "," : "", b / d);
		(*count)++;
	}
	return list;
}

/* count budgets p q near 2^63 with both primes near 2^31.5, the rho's
 * slowest case, as a comma-separated list. */
static char *semiprime_budgets(size_t count, size_t *made)
{
	uint64_t primes[160];
	size_t np = 0;
	for (uint64_t p = UINT64_C(3036000001); np < 160; p += 2)
		if (ha_is_prime(p))
			primes[np++] = p;
	char *list = malloc(count * 21 + 1);
	if (!list)
		exit(1);
	size_t used = 0;
	*made = 0;
	list[0] = '\0';
	for (size_t i = 0; i < np && *made < count; i++)
		for (size_t j = i + 1; j < np && *made < count; j++) {
			used += (size_t)sprintf(list + used, "%s%" PRIu64, *made ? "," : "",
			                        primes[i] * primes[j]);
			(*made)++;
		}
	return list;
}

static void covariance(const char *path, size_t h)
{
	FILE *f = fopen(path, "w");
	fputs("covariance:\n", f);
	for (size_t i = 0; i < h; i++) {
		fputs("  - [", f);
		for (size_t j = 0; j < h; j++)
			fprintf(f, "%s%s", i == j ? "2" : "0.001", j + 1 < h ? ", " : "]\n");
	}
	fclose(f);
}

static void put_le64(FILE *f, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

static uint64_t rng = UINT64_C(0x9E3779B97F4A7C15);

/* A float in [-1, 1), never NaN or infinite. */
static float next_float(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* One F32 tensor "k" of rows x cols random weights. */
static void tensor_file(const char *path, size_t rows, size_t cols)
{
	char header[256];
	size_t bytes = rows * cols * 4;
	int n = snprintf(header, sizeof header,
	                 "{\"k\":{\"dtype\":\"F32\",\"shape\":[%zu,%zu],"
	                 "\"data_offsets\":[0,%zu]}}", rows, cols, bytes);
	FILE *f = fopen(path, "wb");
	put_le64(f, (uint64_t)n);
	fwrite(header, 1, (size_t)n, f);
	for (size_t i = 0; i < rows * cols; i++) {
		float x = next_float();
		fwrite(&x, 4, 1, f);
	}
	fclose(f);
}

/* A header of at most `bytes` bytes: tensors [2, 1] of F32, the first
 * named "k.....", the others "layer.N". */
static size_t header_file(const char *path, size_t bytes)
{
	FILE *f = fopen(path, "wb");
	put_le64(f, 0);
	long start = ftell(f);
	fputc('{', f);
	size_t count = 0;
	while ((size_t)(ftell(f) - start) + 200 < bytes) {
		fprintf(f, "%s\"%s%010zu\":{\"dtype\":\"F32\",\"shape\":[2,1],"
		        "\"data_offsets\":[%zu,%zu]}", count ? "," : "",
		        count ? "layer." : "k.....", count, 8 * count, 8 * count + 8);
		count++;
	}
	fputc('}', f);
	long end = ftell(f);
	for (size_t i = 0; i < 2 * count; i++) {
		float x = (float)(i % 7) - 3.0f;
		fwrite(&x, 4, 1, f);
	}
	fseek(f, 0, SEEK_SET);
	put_le64(f, (uint64_t)(end - start));
	fclose(f);
	return count;
}

int main(int argc, char **argv)
{
	int quick = 0;
	const char *cli = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quick") == 0)
			quick = 1;
		else if (strcmp(argv[i], "--cli") == 0 && i + 1 < argc)
			cli = argv[++i];
		else {
			fprintf(stderr, "usage: headalloc-limits [--quick] [--cli PATH]\n");
			return 2;
		}
	}
	static char default_cli[4096];
	if (!cli) {
		ssize_t len = readlink("/proc/self/exe", default_cli, sizeof default_cli - 64);
		if (len > 0) {
			default_cli[len] = '\0';
			char *slash = strrchr(default_cli, '/');
			if (slash)
				strcpy(slash, "/../src/cli/headalloc");
		}
		cli = default_cli;
	}
	snprintf(dir, sizeof dir, "/tmp/headalloc-limits.XXXXXX");
	if (!mkdtemp(dir))
		return 1;

	printf("headalloc %s limits, each run at the limit (exit 0 expected)\n\n",
	       ha_version());
	printf("%-34s %-40s %9s %8s %9s %4s\n", "limit", "input", "input MB",
	       "seconds", "peak MB", "exit");

	char arg[64];
	const char *s = path_of("budgets.yaml");
	scenario_budgets(s, HA_SCENARIO_MAX_BUDGETS);
	run(cli, "budgets: 100000 distinct", "scenario, 100000 budgets x 1 n",
	    file_mb(s), (char *[]){"--config", (char *)s, NULL});

	snprintf(arg, sizeof arg, "1e4:1e12:%" PRIu64, HA_SCENARIO_MAX_ROWS);
	run(cli, "rows: 1000000 (budgets x n)", "--budget 512 --samples 1e4:1e12:1e6",
	    0.0, (char *[]){"--budget", "512", "--samples", arg, NULL});

	snprintf(arg, sizeof arg, "1e4:1e300:%" PRIu64, HA_SCENARIO_MAX_ROWS);
	run(cli, "rows: 1000000, n to 1e300", "--budget 512 --samples 1e4:1e300:1e6",
	    0.0, (char *[]){"--budget", "512", "--samples", arg, NULL});

	size_t semiprime_count;
	char *semiprimes = semiprime_budgets(6000, &semiprime_count);
	snprintf(arg, sizeof arg, "%zu semiprimes near 2^63", semiprime_count);
	run(cli, "budgets: semiprimes (rho's worst)", arg,
	    (double)strlen(semiprimes) / 1e6,
	    (char *[]){"--budget", semiprimes, "--samples", "1e8", NULL});
	free(semiprimes);

	s = path_of("samples.yaml");
	scenario_samples(s, 1000000);
	run(cli, "samples list: 1000000", "scenario, 1 budget x 1000000 n",
	    file_mb(s), (char *[]){"--config", (char *)s, NULL});

	size_t count;
	uint64_t divisors;
	char *rich = rich_budgets(&count, &divisors);
	char what[64];
	snprintf(what, sizeof what, "%zu rich budgets, %" PRIu64 " divisors", count,
	         divisors);
	run(cli, "divisors: 2^22 over the budgets", what, (double)strlen(rich) / 1e6,
	    (char *[]){"--budget", rich, "--samples", "1e8", NULL});
	run(cli, "divisors: the same, --regimes", what, (double)strlen(rich) / 1e6,
	    (char *[]){"--budget", rich, "--regimes", NULL});
	free(rich);

	/* a grouped table at its joint limit: values of n x (triples + a
	 * row's share) = HA_GROUPED_MAX_SWEEP_WORK, at a divisor-rich budget
	 * (7290 triples) and at the largest budget's 1837080 */
	const uint64_t grouped[] = {720720, 963761198400u};
	for (size_t i = 0; i < sizeof grouped / sizeof *grouped; i++) {
		uint64_t per_row = ha_grouped_triple_bound(grouped[i]) +
		                   HA_GROUPED_ROW_WORK;
		char budget[32];
		snprintf(budget, sizeof budget, "%" PRIu64, grouped[i]);
		snprintf(arg, sizeof arg, "1e8:1e12:%" PRIu64,
		         HA_GROUPED_MAX_SWEEP_WORK / per_row);
		snprintf(what, sizeof what, "--budget %s, %" PRIu64 " n", budget,
		         HA_GROUPED_MAX_SWEEP_WORK / per_row);
		run(cli, "grouped table: 2^26 triple evaluations", what, 0.0,
		    (char *[]){"--budget", budget, "--samples", arg, "--kv-heads",
		               "auto", NULL});
	}

	s = path_of("models.yaml");
	scenario_models(s, HA_SCENARIO_MAX_MODELS);
	run(cli, "models: 10000", "scenario, 10000 models", file_mb(s),
	    (char *[]){"--config", (char *)s, NULL});

	s = path_of("cov.yaml");
	covariance(s, HA_COVARIANCE_MAX_HEADS);
	run(cli, "covariance: 1024 heads", "dense 1024 x 1024", file_mb(s),
	    (char *[]){"weights", (char *)s, NULL});

	s = path_of("header.safetensors");
	size_t tensors = header_file(s, HA_WEIGHTS_MAX_HEADER);
	snprintf(what, sizeof what, "%zu tensors, one measured", tensors);
	run(cli, "safetensors header: 16 MB", what, file_mb(s),
	    (char *[]){"hdi", (char *)s, "--tensor", "k*", "--heads", "2", NULL});

	s = path_of("heads.safetensors");
	tensor_file(s, HA_HDI_MAX_HEADS, 64);
	run(cli, "hdi heads: 1024", "[1024, 64], 1024 heads of d_k 1",
	    file_mb(s), (char *[]){"hdi", (char *)s, "--heads", "1024", NULL});

	s = path_of("square.safetensors");
	tensor_file(s, 1024, 1024);
	run(cli, "hdi: --heads 1 (no SVD)", "[1024, 1024], 1 head", file_mb(s),
	    (char *[]){"hdi", (char *)s, "--heads", "1", NULL});

	if (!quick) {
		/* (H d_k)^2 d_model = 4096^3 = 2^36 = HA_HDI_MAX_WORK */
		s = path_of("layer.safetensors");
		tensor_file(s, 4096, 4096);
		run(cli, "hdi work: 2^36 (4096^3)", "[4096, 4096], 32 heads of 128",
		    file_mb(s), (char *[]){"hdi", (char *)s, "--heads", "32", NULL});
	}

	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
