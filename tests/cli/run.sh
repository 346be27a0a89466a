#!/usr/bin/env bash
# Runs CLI case files (tests/cli/cases/*.test, tests/bad-input/*.test; the
# format is in tests/cli/README.md) against a headalloc binary.  Each case's
# command runs under bash with $HEADALLOC set to the binary, $0 set to the
# case file, in a fresh scratch directory $TMP (also its working
# directory); its stdout, stderr and exit code must equal the case's
# byte for byte.
#
#   run.sh [--bad-input] BINARY CASE...            check the cases
#   run.sh --update [--bad-input] BINARY CASE...   rewrite their exit code,
#                       stdout and stderr from what BINARY does (review the diff!)
#   run.sh --list DIR                    print the names of the cases in DIR
#   run.sh --check-list DIR NAME...      fail unless DIR's cases are NAME...
#
# --bad-input also requires what the catalogue promises of a rejected
# input: a nonzero exit code, no stdout and exactly one line on stderr.
# The exit status is 0 when every case passes, 1 when one fails, 2 for a
# usage error (never 77, which meson would count as a skip).
set -u
case $0 in
*/*) . "${0%/*}/casefile.sh" ;;
*) . ./casefile.sh ;;
esac
export LC_ALL=C

# absolute PATH — relative paths are resolved here because the commands
# run elsewhere.  (Not realpath: one process less per test.)
absolute() {
	case $1 in
	/*) echo "$1" ;;
	*) echo "$PWD/$1" ;;
	esac
}

# --list: meson reads this at setup; a name becomes a test name, so keep
# names to characters that survive meson and the shell unquoted.
list_cases() {
	local dir=$1 file name
	for file in "$dir"/*.test; do
		[ -e "$file" ] || continue
		name=$(basename "$file" .test)
		case $name in
		*[!A-Za-z0-9._-]* | "")
			echo "$file: a case name may only hold letters, digits, '.', '_' and '-'" >&2
			return 1 ;;
		esac
		echo "$name"
	done
}

# --check-list: meson lists the cases when the build is set up, so a case
# added later is not run until the build is set up again; this test says so
# instead of passing without it.  Cases left in the old four-file format
# (NAME.sh/.out/.err/.status) would not run at all: it names those too.
check_list() {
	local dir=$1
	shift
	local listed actual problems=0 legacy
	listed=$(printf '%s\n' "$@" | sort)
	actual=$(list_cases "$dir" | sort) || return 1
	if [ "$listed" != "$actual" ]; then
		echo "FAIL the cases of $dir differ from those meson knows:"
		diff <(echo "$listed") <(echo "$actual") | sed -n 's/^>/  new:/p; s/^</  gone:/p'
		echo "  set the build up again: meson setup --reconfigure BUILDDIR"
		problems=1
	fi
	legacy=$(cd "$dir" && ls -- *.sh *.out *.err *.status 2>/dev/null)
	if [ -n "$legacy" ]; then
		echo "FAIL legacy case files in $dir (not run):" $legacy
		echo "  convert them: tests/cli/convert-legacy.sh $dir/NAME.sh..."
		problems=1
	fi
	[ "$problems" -eq 0 ] && echo "ok   $# cases of $dir registered"
	return "$problems"
}

# shape_problems DIR — what makes the expectations in DIR unlike a rejected
# input (for --bad-input); prints nothing when they are fine.
shape_problems() {
	local dir=$1 err=""
	[ "$(<"$dir/status")" != 0 ] || printf ' exit code 0,'
	[ ! -s "$dir/stdout" ] || printf ' output on stdout,'
	IFS= read -r -d '' err <"$dir/stderr"
	[[ $err == ?*$'\n' && ${err%$'\n'} != *$'\n'* ]] || printf ' other than one line on stderr,'
}

show_diff() {
	local what=$1 expected=$2 actual=$3
	cmp -s "$expected" "$actual" && return
	diff -a -u --label "expected $what" --label "actual $what" "$expected" "$actual" | head -n 100
}

# run_case CASE — run one case, print "ok NAME" or "FAIL NAME: ..." and a
# diff; with --update rewrite the case first.
run_case() {
	local case name work status expected problems="" shape=""
	case=$(absolute "$1")
	name=${case##*/}
	name=${name%.test}
	work=$(mktemp -d) || return 1
	mkdir "$work/expected" "$work/tmp"
	if ! case_parse "$case" "$work/expected" 2>"$work/parse.err"; then
		echo "FAIL $name: malformed case file"
		cat "$work/parse.err"
		rm -rf "$work"
		return 1
	fi
	(cd "$work/tmp" && TMP=$work/tmp exec bash -c "$(<"$work/expected/command")" "$case") \
		</dev/null >"$work/stdout" 2>"$work/stderr"
	status=$?
	if [ "$update" = 1 ]; then
		case_write "$case" "$status" "$work/expected/command" "$work/stdout" \
			"$work/stderr" "$work/expected/header" &&
		case_parse "$case" "$work/expected" || { rm -rf "$work"; return 1; }
	fi
	cmp -s "$work/expected/stdout" "$work/stdout" || problems+=" stdout differs;"
	cmp -s "$work/expected/stderr" "$work/stderr" || problems+=" stderr differs;"
	expected=$(<"$work/expected/status")
	[ "$status" = "$expected" ] || problems+=" exit code $status, expected $expected;"
	if [ "$bad_input" = 1 ]; then
		shape=$(shape_problems "$work/expected")
		[ -z "$shape" ] ||
			problems+=" not a bad input (nonzero exit code, no stdout, one line on stderr): it expects${shape%,};"
	fi
	if [ -z "$problems" ]; then
		echo "ok   $name"
	else
		echo "FAIL $name ($case):${problems%;}"
		show_diff stdout "$work/expected/stdout" "$work/stdout"
		show_diff stderr "$work/expected/stderr" "$work/stderr"
		[ -n "$shape" ] ||
			echo "  if the new output is right: $0 --update$([ "$bad_input" = 1 ] && echo ' --bad-input') $HEADALLOC $case"
	fi
	rm -rf "$work"
	[ -z "$problems" ]
}

update=0 bad_input=0
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=1 ;;
	--bad-input) bad_input=1 ;;
	--list) list_cases "$2"; exit ;;
	--check-list) shift; check_list "$@"; exit ;;
	-*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ $# -lt 2 ]; then
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
HEADALLOC=$(absolute "$1")
export HEADALLOC
shift
passed=0 failed=0
for case in "$@"; do
	if run_case "$case"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
[ $# -eq 1 ] || echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
