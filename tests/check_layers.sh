#!/usr/bin/env bash
# The include direction of the library's layers.  Each folder of src/lib is
# one layer and each public header belongs to one; a file may include
# headers of its own layer and of the layers below it, never above:
#
#   base < fit < alloc < sweep < input < tensors < checkpoint < hdi
#        < calibrate < plan < report < plot < cli
#
# base: status, errors, numbers, text, progress; fit: the scaling-law
# line fits; alloc: the error model, divisors, the solver, the relaxation,
# the integer search, regimes, comparisons with public models; sweep:
# every (n, D) of a grid solved, its fits, its result and its picture's
# data, and the log-spaced values of n; input: the text readers (YAML,
# covariance, runs, scenario, budget lists); tensors: the weights formats
# (safetensors, .npy, ONNX), strict JSON and the files of a model
# directory; checkpoint: model directories (the architecture presets, the
# plan of key projections, fused QKV); hdi: the Head Diversity Index and
# optimal head weights; calibrate: fits
# of the model to runs; plan: which run to train next; report: the text,
# YAML and JSON writers; plot: the
# pictures.
#
# The umbrella <headalloc/headalloc.h> is for users of the library (the
# CLI, the tests, the bench), never for the library itself.
#
# The CLI links the library's objects statically (headalloc_internal) and
# may include the internal headers listed in cli_internal_headers below,
# no others: adding one to the list is a decision, not an accident.
#
#   check_layers.sh SOURCE_ROOT
set -u
root=${1:-.}
cd "$root" || exit 2

rank_of_layer() {
	case $1 in
	base) echo 0 ;; fit) echo 1 ;; alloc) echo 2 ;; sweep) echo 3 ;;
	input) echo 4 ;; tensors) echo 5 ;; checkpoint) echo 6 ;; hdi) echo 7 ;;
	calibrate) echo 8 ;; plan) echo 9 ;; report) echo 10 ;; plot) echo 11 ;;
	cli) echo 12 ;; *) echo "" ;;
	esac
}

# The layer of each public header: keep in step with include/headalloc/.
layer_of_header() {
	case $1 in
	export.h | status.h | error.h | progress.h | format.h | version.h) echo base ;;
	fit.h) echo fit ;;
	model.h | solver.h | grouped.h | regime.h | compare.h | allocation.h) echo alloc ;;
	sweep.h | sweep_picture.h) echo sweep ;;
	covariance.h | runs.h | scenario.h) echo input ;;
	weights.h) echo tensors ;;
	checkpoint.h) echo checkpoint ;;
	hdi.h | head_weights.h | hdi_groups.h | hdi_matrices.h) echo hdi ;;
	calibrate.h | cal_picture.h) echo calibrate ;;
	plan.h) echo plan ;;
	report.h) echo report ;;
	plot.h) echo plot ;;
	*) echo "" ;;
	esac
}

problems=0
complain() {
	echo "$1"
	problems=$((problems + 1))
}

# check FILE LAYER: every include of FILE against LAYER.
check() {
	local file=$1 layer=$2 rank line target target_layer
	rank=$(rank_of_layer "$layer")
	while IFS= read -r line; do
		target=$(sed -E 's/^#include [<"]([^>"]*)[>"].*/\1/' <<<"$line")
		case $target in
		headalloc/headalloc.h | headalloc.h)
			[ "$layer" = cli ] ||
				complain "$file: includes the umbrella header; include the headers it needs"
			continue ;;
		headalloc/*) target_layer=$(layer_of_header "${target#headalloc/}") ;;
		*/*) target_layer=${target%%/*}
		     [ -n "$(rank_of_layer "$target_layer")" ] || continue ;;
		*)
			# A header beside the file, or a public header included
			# from another public header.
			if [ "${file#include/}" != "$file" ]; then
				target_layer=$(layer_of_header "$target")
			else
				continue
			fi ;;
		esac
		if [ -z "$target_layer" ]; then
			complain "$file: includes $target, which has no layer in tests/check_layers.sh"
		elif [ "$(rank_of_layer "$target_layer")" -gt "$rank" ]; then
			complain "$file: $layer includes $target of the higher layer $target_layer"
		fi
	done < <(grep -E '^#include [<"]' "$file" | grep -vE '^#include <(std|math|string|errno|inttypes|limits|float|getopt|signal|unistd|fcntl|sys/|time|ctype|assert|yaml|gsl/|nlopt|json-c/|plplot|cblas|locale|stdarg|dirent)')
}

for file in include/headalloc/*.h; do
	name=$(basename "$file")
	[ "$name" = headalloc.h ] && continue
	layer=$(layer_of_header "$name")
	if [ -z "$layer" ]; then
		complain "$file: no layer in tests/check_layers.sh"
		continue
	fi
	check "$file" "$layer"
done

for file in src/lib/*/*.[ch]; do
	layer=$(basename "$(dirname "$file")")
	if [ -z "$(rank_of_layer "$layer")" ]; then
		complain "$file: src/lib/$layer is not a layer"
		continue
	fi
	check "$file" "$layer"
done

for file in src/lib/*.[ch]; do
	[ -e "$file" ] && complain "$file: library sources live in a layer's folder"
done

# The library-internal headers the CLI may include: the number grammar,
# terminal-safe text, and the parsers and checks of what its options name.
cli_internal_headers=" base/number.h base/text.h
	alloc/model_internal.h alloc/solver_internal.h
	checkpoint/checkpoint_internal.h input/runs_internal.h
	input/budget_list.h
	hdi/hdi_internal.h calibrate/calibrate_internal.h "

# The writer of output files (src/atomic), linked by the CLI and the
# Python extension, stands apart from the library: it includes none of
# headalloc's headers.
for file in src/atomic/*.[ch]; do
	if grep -qE '^#include [<"](headalloc/|base/|fit/|alloc/|sweep/|input/|tensors/|checkpoint/|hdi/|calibrate/|report/|plot/)' "$file"; then
		complain "$file: the output writer includes a headalloc header; it stands apart"
	fi
done

for file in src/cli/*.[ch]; do
	while IFS= read -r target; do
		case $cli_internal_headers in
		*[[:space:]]"$target"[[:space:]]*) ;;
		*) complain "$file: the CLI includes the library-internal $target; use the public API (or add it to cli_internal_headers)" ;;
		esac
	done < <(grep -oE '^#include "(base|fit|alloc|sweep|input|tensors|checkpoint|hdi|calibrate|plan|report|plot)/[^"]*"' "$file" |
		sed -E 's/^#include "(.*)"$/\1/')
	check "$file" cli
done

if [ "$problems" -eq 0 ]; then
	echo "include direction: every file includes only its own layer and those below"
	exit 0
fi
echo "$problems include(s) against the layers"
exit 1
