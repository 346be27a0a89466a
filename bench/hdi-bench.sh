#!/usr/bin/env bash
# headalloc hdi against numpy on a LLaMA-7B-shaped file, measured in the
# same run: seconds per layer, peak RSS, their ratio, and how far the two
# HDIs are apart.
#
#   bench/hdi-bench.sh [--cli PATH] [--layers N] [--file PATH] [--native]
#                      [--threads LIST]
#
# --cli      the headalloc binary (default: build-rel/src/cli/headalloc;
#            make it with meson setup build-rel --buildtype=release &&
#            meson compile -C build-rel)
# --layers   layers of [4096, 4096] BF16 in the generated file (default 32,
#            1 GiB; the file is made once and kept beside the other runs)
# --file     where the file is (default: $TMPDIR/headalloc-hdi-bench/...)
# --native   unset OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for both runs, so
#            OpenBLAS picks its kernel by itself (both runs use the same
#            libopenblas, so they are compared on the same kernel either way)
# --threads  the BLAS thread counts to compare at (default "1 2"): both
#            runs of each get OPENBLAS_NUM_THREADS and OMP_NUM_THREADS set
#            to it, and the ratio is printed for each
#
# numpy is the reference when a python3 with numpy is found (Debian's
# python3-numpy runs on the system BLAS, OpenBLAS where it is installed);
# otherwise its half is skipped with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cli=$here/../build-rel/src/cli/headalloc
layers=32
file=
native=0
threads="1 2"
while [ $# -gt 0 ]; do
	case $1 in
	--cli) cli=$2; shift 2 ;;
	--layers) layers=$2; shift 2 ;;
	--file) file=$2; shift 2 ;;
	--native) native=1; shift ;;
	--threads) threads=$2; shift 2 ;;
	-h | --help) sed -n '2,25p' "$0"; exit 0 ;;
	*) echo "hdi-bench.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -x "$cli" ] || { echo "hdi-bench.sh: no headalloc at $cli (build it, or pass --cli)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "hdi-bench.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
if [ "$native" = 1 ]; then
	unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
fi

work=${TMPDIR:-/tmp}/headalloc-hdi-bench
mkdir -p "$work"
file=${file:-$work/llama7b-k-$layers.safetensors}
if [ ! -s "$file" ]; then
	echo "making $file ($layers x [4096, 4096] BF16)"
	python3 "$here/hdi_gen.py" "$file" --layers "$layers"
fi

# measure NAME OUTFILE COMMAND...: wall seconds and peak RSS (MiB) of one run
measure() {
	local name=$1 out=$2
	shift 2
	/usr/bin/time -v -o "$work/$name.time" "$@" >"$out"
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$work/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/$name.time")
}

echo "file: $file ($layers layers)"
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-unset}"
# Which library GSL's BLAS calls bind to (libgsl names gslcblas itself;
# OpenBLAS, linked by libheadalloc, must come first).
python3 "$here/hdi_gen.py" "$work/tiny.safetensors" --layers 1 --rows 4 --cols 4
echo "cblas_dsyrk from: $(LD_DEBUG=bindings "$cli" hdi "$work/tiny.safetensors" --heads 2 2>&1 >/dev/null |
	sed -n 's/.* to \([^ ]*\) .*cblas_dsyrk.*/\1/p' | head -n 1)"
py=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import numpy' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || echo "numpy: skipped (no python3 with numpy; Debian: apt-get install python3-numpy)"

for t in $threads; do
	export OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t
	echo "-- $t BLAS thread(s)"
	measure headalloc "$work/headalloc.yaml" "$cli" hdi "$file" --heads 32 -f yaml
	ha_secs=$secs ha_rss=$rss
	ha_per=$(awk -v s="$ha_secs" -v l="$layers" 'BEGIN {printf "%.3f", s / l}')
	printf '%-10s %8s s/layer  %6s MiB peak  (%s s in all)\n' headalloc "$ha_per" "$ha_rss" "$ha_secs"
	[ -n "$py" ] || continue
	measure numpy "$work/numpy.txt" "$py" "$here/hdi_numpy.py" "$file" --heads 32
	np_per=$(awk -v s="$secs" -v l="$layers" 'BEGIN {printf "%.3f", s / l}')
	printf '%-10s %8s s/layer  %6s MiB peak  (%s s in all; %s)\n' numpy "$np_per" "$rss" "$secs" \
		"$(grep '^# blas' "$work/numpy.txt" | sed 's/^# blas //' | head -1)"
	awk -v t="$t" -v a="$ha_secs" -v b="$secs" -v ra="$ha_rss" -v rb="$rss" 'BEGIN {
		printf "ratio      headalloc/numpy at %s thread(s): time %.2f, peak RSS %.2f\n", t, a / b, ra / rb }'
	# The two HDIs, tensor by tensor.
	awk 'NR == FNR { if ($0 !~ /^#/) want[$1] = $2; next }
	     /^- tensor: / { name = $3 }
	     /^  hdi: / && name != "" { d = $2 - want[name]; if (d < 0) d = -d; if (d > max) max = d; n++ }
	     END { printf "agreement  max |HDI difference| %.3g over %d tensors\n", max, n }' \
		"$work/numpy.txt" "$work/headalloc.yaml"
done
