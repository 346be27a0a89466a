#!/usr/bin/env bash
# The calibration's documented limits and counts are the code's: reads the
# constants from the public headers (the work limit, the ladder's laws, the
# user laws, the comparison's resamples, the runs a file may hold, the
# default resamples), works out the most runs each documented case allows
# under the work formula of ha_cal_work, and requires every page that
# states them to state those values.  Prints each claim that does not
# match; fails when there is one.
#   tests/check_limits_doc.sh SOURCE_ROOT
set -u
root=${1:-.}
inc=$root/include/headalloc

# The value of `#define NAME VALUE` in a header, stripped of casts and
# suffixes: ((size_t)7) and 2000000.0 read as 7 and 2000000.
constant() {
	local value
	value=$(sed -nE "s/^#define $1 +(.*)$/\\1/p" "$2" |
		sed -E 's/\/\*.*//; s/\(size_t\)//g; s/[() ]//g; s/\.0$//')
	if ! [[ $value =~ ^[0-9]+$ ]]; then
		echo "cannot read $1 from $2 (found '$value')" >&2
		exit 2
	fi
	echo "$value"
}

work_max=$(constant HA_CAL_WORK_MAX "$inc/calibrate.h")
ladder=$(constant HA_CAL_LADDER "$inc/calibrate.h")
user_laws=$(constant HA_CAL_USER_LAWS_MAX "$inc/calibrate.h")
compared=$(constant HA_CAL_COMPARE_RESAMPLES "$inc/calibrate.h")
default_b=$(constant HA_CAL_BOOTSTRAP_DEFAULT "$inc/calibrate.h")
runs_max=$(constant HA_RUNS_MAX "$inc/runs.h")

# The most runs m with m (1 + B + laws (m + 1 + min(B, compared))) at most
# the limit (capped at the runs a file may hold).
most_runs() {
	awk -v b="$1" -v laws="$2" -v c="$compared" -v w="$work_max" \
		-v cap="$runs_max" 'BEGIN {
		share = b < c ? b : c
		m = 0
		while (m < cap && (m + 1) * (1 + b + laws * (m + 2 + share)) <= w)
			m++
		print m
	}'
}
plain=$(most_runs 0 0)
default_runs=$(most_runs "$default_b" 0)
compare_runs=$(most_runs "$default_b" "$ladder")
work_text=$(awk -v w="$work_max" 'BEGIN {
	e = 0; while (w >= 10 && w % 10 == 0) { w /= 10; e++ }; print w " \\(mu 10^" e }')

failed=0
# need FILE TEXT: FILE (its plain text) holds TEXT.
need() {
	if ! grep -qF -- "$2" "$root/$1"; then
		echo "$1: expected '$2' (from the constants of include/headalloc)"
		failed=$((failed + 1))
	fi
}

[ "$plain" -eq "$runs_max" ] ||
	echo "note: --bootstrap 0 no longer allows every runs file ($plain runs)"
for page in man/headalloc-calibrate.1 man/headalloc.1; do
	need "$page" "Past $work_text it refuses before any work"
	need "$page" "the $ladder laws of the ladder"
	need "$page" "(at most $user_laws)"
	need "$page" "min Ns ( Ns Ar B , No $compared)"
	need "$page" "at most $runs_max runs, Xr headalloc-runs 5"
	need "$page" "default $default_b resamples at most $default_runs runs"
	need "$page" "besides at most $compare_runs runs"
done
need man/headalloc-calibrate.1 "Repeatable, at most $user_laws times."
need man/headalloc-runs.5 "at most $runs_max runs and"
need man/headalloc-runs.5 "allows at most $default_runs runs"
need man/headalloc-runs.5 "and $compare_runs with"
# 100000 as the README writes it: 100,000.
thousands() { echo "$1" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta'; }
need README.md "a runs file of $(thousands "$runs_max") runs"
need README.md "the $ladder laws of the ladder"
need README.md "min(B, $compared)"
need README.md "$(thousands "$default_runs") with the default $default_b"
need README.md "$compare_runs with \`--compare\` besides"

if [ "$failed" -gt 0 ]; then
	echo "$failed documented limit(s) differ from the code"
	exit 1
fi
echo "the documented calibration limits match the code: $work_text run-fits," \
	"$ladder ladder laws, $default_runs and $compare_runs runs"
