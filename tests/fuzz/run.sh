#!/usr/bin/env bash
# Build the libFuzzer targets (clang) and run each for SECONDS (default 60)
# on a copy of its seed corpus.  A finding is saved in findings/ and
# should become a regression test.  The last line is "N passed, N failed".
#   tests/fuzz/run.sh [SECONDS] [TARGET...]
set -u
seconds=${1:-60}
shift || true
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build-fuzz
if [ ! -d "$build" ]; then
	CC=clang meson setup "$build" "$top" -Dfuzz=true -Dtests=disabled >/dev/null || exit 1
fi
meson compile -C "$build" >/dev/null || exit 1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(numbers options scenario runs safetensors npy onnx covariance config index layout)
mkdir -p "$top/tests/fuzz/findings"
passed=0 failed=0
for t in "${targets[@]}"; do
	work=$(mktemp -d)
	cp -r "$top/tests/fuzz/corpus/$t/." "$work/"
	log=$work/log.txt
	extra=()
	[ "$t" = options ] && extra=(-close_fd_mask=2) # the parser's own messages
	if "$build/tests/fuzz/fuzz_$t" "${extra[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
	   -artifact_prefix="$top/tests/fuzz/findings/$t-" "$work" >"$log" 2>&1; then
		echo "ok   fuzz_$t: $(grep -E '^#[0-9]+' "$log" | tail -n 1 | cut -c1-100)"
		passed=$((passed + 1))
	else
		echo "FAIL fuzz_$t:"
		grep -E 'ERROR|SUMMARY|artifact' "$log" | head -10
		failed=$((failed + 1))
	fi
	rm -rf "$work"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
