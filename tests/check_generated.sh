#!/bin/sh
# check_generated.sh GENERATOR FILE ARG: FILE must be exactly what
# `GENERATOR ARG` prints (a committed data file and the program that made
# it).  Prints the difference and "1 passed, 0 failed" or "0 passed, 1 failed".
set -u
if [ "$#" -ne 3 ]; then
	echo "usage: check_generated.sh GENERATOR FILE ARG" >&2
	exit 2
fi
out=$(mktemp "${TMPDIR:-/tmp}/check_generated.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
if ! "$1" "$3" >"$out"; then
	echo "$1 $3 failed"
	echo "0 passed, 1 failed"
	exit 1
fi
if ! diff -u "$2" "$out"; then
	echo "$2 is not what '$1 $3' prints: regenerate it"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "$2 is what '$1 $3' prints"
echo "1 passed, 0 failed"
