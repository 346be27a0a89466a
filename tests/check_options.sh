#!/bin/sh
# check_options.sh BINARY MANPAGE [SUBCOMMAND=PAGE]...
#
# Checks that each command's mdoc manual page documents exactly the options
# that its --help lists, looking at the page's OPTIONS section only (from
# ".Sh OPTIONS" to the next .Sh): `BINARY --help` against MANPAGE and, for
# each SUBCOMMAND=PAGE (such as hdi=man/headalloc-hdi.1), `BINARY SUBCOMMAND
# --help` against PAGE.  For each such pair of a --help text and a page:
#   - the set of long options in --help equals the set of long options the
#     man page writes with the Fl macro (".Fl \-name", ".Fl -name" and
#     ".Fl Fl name" all count, as do further arguments of one Fl call, such
#     as ".Fl \-min-heads , \-max-heads");
#   - the set of short options in --help equals the set of short options of
#     the man page (".Fl b");
#   - every long option of --help has an .It entry in the man page (a
#     mention in prose alone does not document it);
#   - every "-x, --name" pair of --help has an .It line in the man page that
#     gives both -x and --name.
# Prints the differences and, as its last line, "1 passed, 0 failed" (exit 0)
# or "0 passed, 1 failed" (exit 1; exit 2 when it cannot run at all).
set -u

finish() {
	if [ "$1" -eq 0 ]; then
		echo "1 passed, 0 failed"
	else
		echo "0 passed, 1 failed"
	fi
	rm -rf "$work"
	exit "$1"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/check_options.XXXXXX") || {
	echo "check_options: cannot create a temporary directory" >&2
	echo "0 passed, 1 failed"
	exit 2
}

if [ "$#" -lt 2 ]; then
	echo "usage: check_options.sh BINARY MANPAGE [SUBCOMMAND=PAGE]..." >&2
	finish 2
fi
binary=$1
shift
status=0

# section HEADING: the lines of the man page $manpage from the line HEADING
# (".Sh OPTIONS") up to the next .Sh (and, for a .Ss, the next .Ss) into
# $work/man.  Fails when the page has no such line.
section() {
	HEADING=$1 awk '
	found && /^\.Sh[ \t]/ { exit }
	found && in_ss && /^\.Ss[ \t]/ { exit }
	!found && $0 == ENVIRON["HEADING"] { found = 1; in_ss = /^\.Ss/ }
	found { print }
	END { exit !found }' "$manpage" >"$work/man"
}

# report FILE MESSAGE PREFIX: print a non-empty difference and fail.
report() {
	if [ -s "$1" ]; then
		echo "$2"
		sed "s/^/    $3/" "$1"
		failed=1
	fi
}

# check LABEL PAGE HEADING [SUBCOMMAND]: compare the options of
# `BINARY [SUBCOMMAND] --help` with the section HEADING of PAGE.
check() {
	label=$1 manpage=$2 heading=$3 failed=0
	shift
	if [ ! -r "$manpage" ]; then
		echo "check_options: cannot read '$manpage'" >&2
		finish 2
	fi
	if ! "$binary" ${3:+"$3"} --help >"$work/help" 2>"$work/help.err"; then
		echo "check_options: '$label --help' failed:" >&2
		cat "$work/help.err" >&2
		finish 2
	fi
	if ! section "$heading"; then
		echo "check_options: $manpage has no '$heading' line for $label" >&2
		status=1
		return
	fi

	# --- --help -------------------------------------------------------
	# Option lines look like "  -b, --budget D   ..." or "      --hdi X".
	# Each yields "short long" ("-" when there is no short form).
	awk '
	/^[ \t]+(-[A-Za-z0-9], +)?--[A-Za-z0-9]/ {
		short = "-"
		if (match($0, /^[ \t]+-[A-Za-z0-9],/))
			short = substr($0, RSTART + RLENGTH - 2, 1)
		match($0, /--[A-Za-z0-9][A-Za-z0-9-]*/)
		print short, substr($0, RSTART + 2, RLENGTH - 2)
	}' "$work/help" >"$work/help.pairs"

	if [ ! -s "$work/help.pairs" ]; then
		echo "check_options: no options found in '$label --help'" >&2
		status=1
		return
	fi
	awk '{ print $2 }' "$work/help.pairs" | LC_ALL=C sort -u >"$work/help.long"
	awk '$1 != "-" { print $1 }' "$work/help.pairs" | LC_ALL=C sort -u >"$work/help.short"

	# --- the man page -------------------------------------------------
	# Follow mdoc's rendering of Fl: every argument of Fl up to the next macro
	# gets one dash (two after "Fl Fl"); delimiters are skipped.  Prints
	# "long NAME", "short X" and, per .It line, "pair X NAME".
	awk '
	function flag(arg,    r) {
		gsub(/\\&/, "", arg)
		gsub(/\\-/, "-", arg)
		gsub(/"/, "", arg)
		if (arg ~ /^[,|.;:()\[\]]+$/ || arg == "")
			return ""
		r = "-" arg
		if (dbl)
			r = "-" r
		return r
	}
	/^[.\047]/ {
		line = substr($0, 2)
		sub(/^[ \t]+/, "", line)
		if (line ~ /^\\"/)
			next
		n = split(line, tok, /[ \t]+/)
		in_fl = 0; dbl = 0; prev = ""
		is_item = (tok[1] == "It")
		item_short = ""; item_long = ""
		for (i = 1; i <= n; i++) {
			t = tok[i]
			if (t == "Fl") {
				dbl = (prev == "Fl")
				in_fl = 1
			} else if (t ~ /^[A-Z][a-z][a-z]?$/ || t ~ /^%[A-Z]$/) {
				in_fl = 0; dbl = 0
			} else if (in_fl) {
				f = flag(t)
				if (f ~ /^--[A-Za-z0-9]/) {
					name = substr(f, 3)
					sub(/[^A-Za-z0-9-].*$/, "", name)
					print "long", name
					if (is_item)
						print "item", name
					if (is_item && item_long == "")
						item_long = name
				} else if (f ~ /^-[A-Za-z0-9]$/) {
					print "short", substr(f, 2)
					if (is_item && item_short == "")
						item_short = substr(f, 2)
				}
			}
			prev = t
		}
		if (item_short != "" && item_long != "")
			print "pair", item_short, item_long
	}' "$work/man" >"$work/man.flags"

	awk '$1 == "long" { print $2 }' "$work/man.flags" | LC_ALL=C sort -u >"$work/man.long"
	awk '$1 == "short" { print $2 }' "$work/man.flags" | LC_ALL=C sort -u >"$work/man.short"
	awk '$1 == "pair" { print $2, $3 }' "$work/man.flags" | LC_ALL=C sort -u >"$work/man.pairs"
	awk '$1 == "item" { print $2 }' "$work/man.flags" | LC_ALL=C sort -u >"$work/man.items"

	LC_ALL=C comm -23 "$work/help.long" "$work/man.long" >"$work/d1"
	LC_ALL=C comm -13 "$work/help.long" "$work/man.long" >"$work/d2"
	LC_ALL=C comm -23 "$work/help.long" "$work/man.items" >"$work/d6"
	LC_ALL=C comm -23 "$work/help.short" "$work/man.short" >"$work/d3"
	LC_ALL=C comm -13 "$work/help.short" "$work/man.short" >"$work/d4"
	awk '$1 != "-"' "$work/help.pairs" | LC_ALL=C sort -u >"$work/help.sp"
	LC_ALL=C comm -23 "$work/help.sp" "$work/man.pairs" >"$work/d5"

	where="'$heading' of $manpage"
	report "$work/d1" "long options in $label --help but not in $where:" "--"
	report "$work/d2" "long options in $where but not in $label --help:" "--"
	report "$work/d6" "long options of $label --help with no .It entry in $where:" "--"
	report "$work/d3" "short options in $label --help but not in $where:" "-"
	report "$work/d4" "short options in $where but not in $label --help:" "-"
	awk '{ print "-" $1 ", --" $2 }' "$work/d5" >"$work/d5.text"
	report "$work/d5.text" "option pairs of $label --help with no .It line giving both in $where:" ""

	if [ "$failed" -eq 0 ]; then
		echo "$(wc -l <"$work/help.long" | tr -d ' ') long and" \
		     "$(wc -l <"$work/help.short" | tr -d ' ') short options agree" \
		     "between $label --help and $where"
	else
		status=1
	fi
}

check headalloc "$1" ".Sh OPTIONS"
shift
for arg in "$@"; do
	case $arg in
	?*=?*) ;;
	*)
		echo "check_options: '$arg' is not SUBCOMMAND=PAGE" >&2
		finish 2
		;;
	esac
	check "headalloc ${arg%%=*}" "${arg#*=}" ".Sh OPTIONS" "${arg%%=*}"
done
finish "$status"
