#!/usr/bin/env bash
# Golden CLI cases: each cases/NAME.sh is a shell snippet run with
# $HEADALLOC set to the binary under test and $TMP to a fresh scratch
# directory; its stdout, stderr and exit status must equal cases/NAME.out,
# cases/NAME.err and cases/NAME.status byte for byte.
#
#   run.sh BINARY CASEDIR            check every case
#   run.sh BINARY CASEDIR --update   rewrite the expectations (review the diff!)
set -u
HEADALLOC=$(realpath "$1")
cases=$(realpath "$2")
update=${3:-}
export HEADALLOC LC_ALL=C
passed=0 failed=0
for script in "$cases"/*.sh; do
	name=${script%.sh}
	TMP=$(mktemp -d)
	export TMP
	(cd "$TMP" && bash "$script") >"$TMP/.stdout" 2>"$TMP/.stderr"
	status=$?
	if [ "$update" = --update ]; then
		cp "$TMP/.stdout" "$name.out"
		cp "$TMP/.stderr" "$name.err"
		echo "$status" >"$name.status"
	fi
	problems=""
	cmp -s "$TMP/.stdout" "$name.out" || problems+=" stdout"
	cmp -s "$TMP/.stderr" "$name.err" || problems+=" stderr"
	[ "$status" = "$(cat "$name.status")" ] || problems+=" status($status)"
	if [ -z "$problems" ]; then
		passed=$((passed + 1))
		echo "ok   $(basename "$name")"
	else
		failed=$((failed + 1))
		echo "FAIL $(basename "$name"):$problems"
		diff -u "$name.out" "$TMP/.stdout" | head -20
		diff -u "$name.err" "$TMP/.stderr" | head -5
	fi
	rm -rf "$TMP"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
