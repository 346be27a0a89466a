#!/usr/bin/env bash
# Converts CLI cases of the old four-file format — NAME.sh (the command),
# NAME.out, NAME.err, NAME.status — into one NAME.test each (format in
# tests/cli/README.md), checks that the case file gives back every byte of
# the four, then removes them.  For cases written before the one-file format
# (e.g. arriving with a merge):
#
#   tests/cli/convert-legacy.sh tests/cli/cases/*.sh tests/bad-input/*.sh
#
# Afterwards set the build up again (meson setup --reconfigure BUILDDIR) so
# that meson registers the new cases, run them, and after new bad-input
# cases regenerate the catalogue:
#   tests/bad_input_catalogue.sh > tests/bad-input/README.md
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/casefile.sh"
export LC_ALL=C

convert() {
	local script=$1 base work status
	base=${script%.sh}
	if [ "$base" = "$script" ] || [ ! -f "$script" ]; then
		echo "$script: not a NAME.sh file" >&2
		return 1
	fi
	for ext in out err status; do
		[ -f "$base.$ext" ] || { echo "$base.$ext: missing" >&2; return 1; }
	done
	if [ -e "$base.test" ]; then
		echo "$base.test: exists already" >&2
		return 1
	fi
	status=$(cat "$base.status")
	case $status in
	'' | *[!0-9]*) echo "$base.status: expected an exit code, found '$status'" >&2; return 1 ;;
	esac
	work=$(mktemp -d) || return 1
	if case_write "$base.test" "$status" "$script" "$base.out" "$base.err" &&
	   case_parse "$base.test" "$work" &&
	   cmp "$work/command" "$script" && cmp "$work/stdout" "$base.out" &&
	   cmp "$work/stderr" "$base.err" && [ "$(cat "$work/status")" = "$status" ]; then
		rm -f "$script" "$base.out" "$base.err" "$base.status"
		echo "$base.test"
	else
		echo "$base.test: does not give back the legacy files; kept them" >&2
		rm -f "$base.test"
		rm -rf "$work"
		return 1
	fi
	rm -rf "$work"
}

if [ $# -eq 0 ]; then
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
failed=0
for script in "$@"; do
	convert "$script" || failed=1
done
exit "$failed"
