# Round every decimal number with a point or an exponent to 10 significant
# digits ("-40.854643598004216" -> "-40.85464360"), so that golden files of
# calibration reports hold what the fit determines and not the last bits
# where an optimiser stopped (which a different libm may move).  Integers
# (counts, heads, budgets) are left alone.  Used by cases/calibrate-*.test.
{
	out = ""
	while (match($0, /-?[0-9]+(\.[0-9]+)?[eE][-+]?[0-9]+|-?[0-9]+\.[0-9]+/)) {
		x = sprintf("%.10g", substr($0, RSTART, RLENGTH) + 0)
		if (x == "-0")
			x = "0"
		out = out substr($0, 1, RSTART - 1) x
		$0 = substr($0, RSTART + RLENGTH)
	}
	print out $0
}
