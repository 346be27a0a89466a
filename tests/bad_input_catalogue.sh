#!/usr/bin/env bash
# Print the catalogue of rejected inputs, tests/bad-input/README.md, from
# the cases there: each NAME.sh, its status NAME.status, its message NAME.err.
#   bad_input_catalogue.sh            print it
#   bad_input_catalogue.sh --check    fail unless the README is up to date
set -u
dir=$(cd "$(dirname "$0")/bad-input" && pwd)
render() {
	cat <<'HEAD'
# Bad-input catalogue

Every input headalloc rejects, with the exact message (one line on stderr)
and exit status: 1 for a file that cannot be read or written, 2 for a
malformed or out-of-range value, option, scenario file or weight file, 3
when no allocation meets the constraints.  Each row is a case in this
directory (`NAME.sh`, run with `$HEADALLOC` set to the binary), checked
byte for byte by `meson test` (suite `bad-input`); this page is generated
by `tests/bad_input_catalogue.sh` and checked against the cases too.

| case | input | status | message |
|---|---|---|---|
HEAD
	for script in "$dir"/*.sh; do
		name=$(basename "$script" .sh)
		input=$(grep -v '^D=' "$script" | sed 's/"\$HEADALLOC"/headalloc/g; s/\$D\///g; s/"\$(dirname "\$0")\/..\/data\/\([^"]*\)"/\1/g' |
		        tr '\n' ';' | sed 's/;$//; s/;/; /g; s/|/\\|/g')
		message=$(tr '\n' ' ' <"$dir/$name.err" | sed 's/ $//; s/|/\\|/g')
		printf '| %s | `%s` | %s | %s |\n' "$name" "$input" "$(cat "$dir/$name.status")" "$message"
	done
}
if [ "${1:-}" = --check ]; then
	if render | cmp -s - "$dir/README.md"; then
		echo "1 passed, 0 failed"
	else
		render | diff -u "$dir/README.md" - | head -20
		echo "0 passed, 1 failed"
		exit 1
	fi
else
	render
fi
