#!/usr/bin/env bash
# The library starts threads in one place, its pool (src/lib/base/pool.c),
# and reads the online processors there alone, so that `threads` means
# the same in every request.
#   check_one_pool.sh SOURCE_ROOT
set -u
root=${1:-.}
cd "$root/src/lib" || exit 2
problems=0
for call in pthread_create _SC_NPROCESSORS_ONLN; do
	sites=$(grep -rn --include='*.[ch]' "$call" . | grep -v '^\./base/pool\.c:')
	count=$(grep -rc --include='*.[ch]' "$call" . | awk -F: '{n += $2} END {print n + 0}')
	if [ -n "$sites" ]; then
		echo "$call outside base/pool.c:"
		echo "$sites"
		problems=$((problems + 1))
	fi
	if [ "$count" -ne 1 ]; then
		echo "$call: $count sites in src/lib (one expected, in base/pool.c)"
		problems=$((problems + 1))
	fi
done
[ "$problems" -eq 0 ] && echo "one pthread_create and one _SC_NPROCESSORS_ONLN in src/lib, both in base/pool.c"
exit $((problems > 0))
