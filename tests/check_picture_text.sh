#!/usr/bin/env bash
# No text of a picture leaves the page or its clipping region, and no two
# texts overlap: every kind of picture (allocation, sweep, regimes, the
# grouped front, hdi, weights, calibration), drawn as SVG by the command, measured by
# svg_text_check (its font metric table: DejaVu Sans, see its source).
#
#   check_picture_text.sh HEADALLOC SVG_TEXT_CHECK
set -u
bin=$(realpath "$1")
check=$(realpath "$2")
data=$(cd "$(dirname "$0")" && pwd)/data
repo_data=$(cd "$(dirname "$0")/../data" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 2
status=0
draw() {
	local name=$1
	shift
	if ! "$bin" "$@" --plot "$name.svg" >/dev/null 2>&1; then
		echo "FAIL $name: headalloc $* --plot $name.svg did not draw"
		status=1
		return
	fi
	if ! "$check" "$name.svg"; then
		echo "FAIL $name: headalloc $* --plot $name.svg"
		status=1
	fi
}
cp "$data/two-layers.safetensors" "$data/nine-layers.safetensors" "$data/cov3.yaml" .
cp "$repo_data/runs.yaml" .
draw allocation --budget 512 --samples 1e8
draw allocation-large --budget 720720 --samples 1e12
draw allocation-constrained --budget 4096 --samples 1e9 --min-head-dim 64
draw sweep --budget 128,512 --samples 1e4:1e12:9
draw sweep-budgets --budget 64,128,256,512,1024,2048,4096,8192 --samples 1e9
draw regimes --budget 512,4096 --regimes
draw regimes-one --budget 24 --regimes
draw regimes-three --budget 512,4096,32768 --regimes
draw regimes-six --budget 64,128,256,512,1024,4096 --regimes
draw front --budget 4096 --samples 1e12 --kv-heads auto --max-kv-dim 1024 --pareto --max-loss-ratio 1.1
draw front-many --budget 720720 --samples 1e9 --kv-heads auto --group-hdi 0.3 --layers 80 --pareto
draw hdi hdi two-layers.safetensors --heads 12 --tensor 'model.layers.*.k_proj.weight'
draw hdi-nine hdi nine-layers.safetensors --heads 12
draw weights weights cov3.yaml
draw calibration calibrate runs.yaml --bootstrap 20
# --plot-each: every picture of one layer
if "$bin" hdi nine-layers.safetensors --heads 12 --plot-each --plot each.svg >/dev/null 2>&1; then
	"$check" each-*.svg || { echo "FAIL hdi --plot-each"; status=1; }
else
	echo "FAIL hdi --plot-each did not draw"
	status=1
fi
[ "$status" = 0 ] && echo "ok: no text leaves its page or region, none overlaps another"
exit $status
