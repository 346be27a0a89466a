# Round every decimal number with a point ("0.5699999999999998",
# "1.3866695599588095e-32") to 12 decimals, dropping trailing zeros but
# keeping one ("0.57", "0.0"), so that golden files of YAML reports do not
# depend on the last bits of an SVD or eigensolver.  Used by cases/*.test.
{
	out = ""
	while (match($0, /-?[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?/)) {
		x = sprintf("%.12f", substr($0, RSTART, RLENGTH) + 0)
		sub(/0+$/, "", x)
		sub(/\.$/, ".0", x)
		if (x == "-0.0")
			x = "0.0"
		out = out substr($0, 1, RSTART - 1) x
		$0 = substr($0, RSTART + RLENGTH)
	}
	print out $0
}
