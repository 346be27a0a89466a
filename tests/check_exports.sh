#!/usr/bin/env bash
# The shared library exports exactly the functions declared HA_API in the
# public headers: no internal helper leaks into the ABI, and no declared
# function is missing.
#
#   check_exports.sh LIBRARY INCLUDE_DIR
set -u
lib=$1 include=$2
exported=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort)
declared=$(grep -hoE '^HA_API [^(]*[ *]([a-z_0-9]+)\(' "$include"/*.h |
	sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' | sort)
extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
[ -z "$extra" ] || echo "exported but not declared HA_API in $include:" $extra
[ -z "$missing" ] || echo "declared HA_API but not exported:" $missing
if [ -z "$extra$missing" ]; then
	echo "$(echo "$exported" | wc -l) exported functions, each declared HA_API"
	exit 0
fi
exit 1
