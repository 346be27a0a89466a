#!/usr/bin/env bash
# The pictures of the README, drawn by headalloc from this repository's own
# data (each command is the README's):
#
#   make-figures.sh BINARY [DIR]    draw them into DIR (default: data/figures)
#   make-figures.sh --check BINARY  draw them into a temporary directory and
#                                   fail unless they are, byte for byte, the
#                                   ones in data/figures
#
# PNG bytes depend on cairo, pango and the fonts (fonts-dejavu-core) as well
# as on headalloc: regenerate after changing any of them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
if [ $# -lt 1 ]; then
	echo "usage: make-figures.sh [--check] BINARY [DIR]" >&2
	exit 2
fi
bin=$(realpath "$1")
figures=$root/data/figures
if [ "$check" = 1 ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
else
	dir=$(realpath "${2:-$figures}")
fi

# Relative paths from the repository's root: file names are part of some
# pictures.
cd "$root" || exit 2
status=0
draw() {
	local name=$1
	shift
	if ! "$bin" "$@" --plot "$dir/$name" >/dev/null; then
		echo "FAIL $name: headalloc $* --plot $name"
		status=1
	fi
}
draw landscape.png --budget 512 --samples 1e8
draw sweep.png --config data/scaling.yaml --budget 128,1024,8192
draw regimes.png --config data/regimes.yaml
draw hdi.png hdi tests/data/two-layers.safetensors --heads 12 --tensor 'model.layers.*.k_proj.weight'
draw weights.png weights tests/data/cov3.yaml
draw calibrate.png calibrate data/runs.yaml --budget 4096 --samples 1e10 --compare --bootstrap 500 --seed 1
[ "$check" = 1 ] || exit "$status"

passed=0 failed=0
for f in landscape sweep regimes hdi weights calibrate; do
	if cmp -s "$dir/$f.png" "$figures/$f.png"; then
		echo "ok   data/figures/$f.png"
		passed=$((passed + 1))
	else
		echo "FAIL data/figures/$f.png differs from what the code draws (run data/figures/make-figures.sh BINARY)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
