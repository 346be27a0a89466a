#!/usr/bin/env bash
# The report and plot layer only render results: no
# file of it (src/lib/report/*.c, src/lib/plot/*.c) calls a function that
# solves, fits, finds regimes, calibrates, compares or measures.  The
# forbidden calls, by name:
#
#   ha_solve*, ha_solver_*, ha_relaxed_solver_*, ha_integer_memo_*,
#   ha_allocation_result_new               the allocator and its relaxation
#   ha_fit_new/free/reset/add/count/result/residual/seed_exponent
#                                          the scaling-law fits
#   ha_regime_*, ha_regimes_new            the exact regimes
#   ha_sweep_new, ha_sweep_run, ha_sweep_rows, ha_sweep_budget_fits,
#   ha_sweep_picture_new                   the sweep and its picture data
#   ha_calibrate, ha_cal_fit_runs, ha_cal_ladder, ha_cal_band,
#   ha_cal_log_loss, ha_cal_validate_runs, ha_cal_model_of,
#   ha_cal_law_from_model, ha_cal_picture_new
#                                          calibration and its picture data
#   ha_compare_model*                      the public-model comparison
#   ha_hdi_compute, ha_hdi_from_*, ha_hdi_random_baseline,
#   ha_covariance_weights, ha_head_weights_compute
#                                          measurements
#   pool_new, pthread_create               threads of their own
#
# Names of things (ha_certificate_method_str, ha_key_fusion_str,
# ha_layout_str, ha_cal_param_str ...) and the freeing of results are
# allowed.  Comments are not code: they are stripped first.
#
# Rendering a sweep means reading its result (ha_sweep_result_rows,
# ha_sweep_result_budget_fits, ha_sweep_result_samples_fits): the caller
# runs the sweep, and the sweep's picture draws the data of
# ha_sweep_picture_new.
#
# PENDING lists the files that still compute while they render (none
# now: the table renders the caller's sweep, the sweep's picture and the
# calibration's picture draw the data of ha_sweep_picture_new and
# ha_cal_picture_new); the test also fails when a pending file no longer
# calls any, so that the list only shrinks.
#
#   check_render_only.sh SOURCE_ROOT
set -u
root=${1:-.}
cd "$root/src/lib" || exit 2

FORBIDDEN='\b(ha_solve[a-z_]*|ha_allocation_result_new|ha_solver_[a-z_]+|ha_relaxed_solver_[a-z_]+|ha_integer_memo_[a-z_]+|ha_fit_(new|free|reset|add|count|result|residual|seed_exponent)|ha_regime_[a-z_]+|ha_regimes_new|ha_sweep_(new|run|rows|budget_fits|picture_new)|ha_calibrate|ha_cal_(fit_runs|ladder|band|log_loss|validate_runs|model_of|law_from_model|picture_new)|ha_compare_model[a-z_]*|ha_hdi_(compute|from_[a-z_]+|random_baseline)|ha_covariance_weights|ha_head_weights_compute|pool_new|pthread_create)[[:space:]]*\('

PENDING=" "

problems=0
for file in report/*.c plot/*.c; do
	calls=$(perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$file" |
	        grep -noE "$FORBIDDEN" | sed 's/[[:space:]]*($//')
	case $PENDING in
	*" $file "* | *" $file"$'\n'* | *$'\n'"$file "*)
		if [ -z "$calls" ]; then
			echo "$file: calls no solver any more; take it off PENDING in $0"
			problems=$((problems + 1))
		fi ;;
	*)
		if [ -n "$calls" ]; then
			echo "$file: a renderer computes:" $calls
			problems=$((problems + 1))
		fi ;;
	esac
done
if [ "$problems" -eq 0 ]; then
	echo "render only: no report or plot file outside PENDING calls a solver, fit, regime, sweep or thread function"
	exit 0
fi
exit 1
