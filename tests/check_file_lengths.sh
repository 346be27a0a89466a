#!/usr/bin/env bash
# A file is one thing; this is only a safety cap: no source file over
# 1000 lines (every .c and .h of the library, the command line, the
# Python extension, the headers, the benches and the tests' helpers).
# Prints each file over the limit; fails when there is one.
#   tests/check_file_lengths.sh SOURCE_ROOT
set -u
root=${1:-.}
limit=1000
over=0
while IFS= read -r -d '' file; do
	lines=$(wc -l < "$file")
	if [ "$lines" -gt "$limit" ]; then
		echo "${file#"$root"/}: $lines lines (at most $limit)"
		over=$((over + 1))
	fi
done < <(find "$root/src" "$root/include" "$root/python/src" "$root/bench" \
	-name '*.[ch]' -print0 2>/dev/null)
if [ "$over" -gt 0 ]; then
	echo "$over file(s) over $limit lines"
	exit 1
fi
echo "every source file is at most $limit lines"
