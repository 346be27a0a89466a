#!/usr/bin/env bash
# The shared library exports exactly the functions declared HA_API in the
# public headers: no internal helper leaks into the ABI, and no declared
# function is missing; and no more than MAX of them (default 100), so that
# the public API stays one a caller can hold in their head.
#
#   check_exports.sh LIBRARY INCLUDE_DIR [MAX]
set -u
lib=$1 include=$2 max=${3:-100}
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
declared=$(grep -hoE '^HA_API [^(]*[ *]([a-z_0-9]+)\(' "$include"/*.h |
	sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort)
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
[ -z "$extra" ] || echo "exported but not declared HA_API in $include:" $extra
[ -z "$missing" ] || echo "declared HA_API but not exported:" $missing
count=$(echo "$exported" | grep -c .)
if [ "$count" -gt "$max" ]; then
	echo "$count exported functions: more than $max"
	exit 1
fi
if [ -z "$extra$missing" ]; then
	echo "$count exported functions (at most $max), each declared HA_API"
	exit 0
fi
exit 1
