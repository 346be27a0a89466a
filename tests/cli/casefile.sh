# Reading and writing CLI case files (NAME.test); the format is described
# in tests/cli/README.md.  Sourced by run.sh, convert-legacy.sh and
# ../bad_input_catalogue.sh, so that one parser and one writer serve the
# runner, --update, the legacy converter and the catalogue.

# case_parse CASE DIR — split CASE into DIR/command, DIR/stdout, DIR/stderr
# (exact bytes, empty when the section is absent), DIR/status (the expected
# exit code) and DIR/header (its comment and blank lines, kept by
# --update).  Prints FILE:LINE: message and fails on a malformed file.
case_parse() {
	local file=$1 dir=$2 section
	# DIR may hold an earlier case's parts: a section this case leaves out
	# must not inherit them.  (Redirections, not rm: this runs once per
	# test, and a process less per case shows in the suite's time.)
	for section in command stdout stderr; do
		: >"$dir/$section"
		: >"$dir/$section.b64"
	done
	: >"$dir/header"
	LC_ALL=C awk -v dir="$dir" '
	function fail(msg) {
		if (FNR)
			printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
		else
			printf "%s: %s\n", FILENAME, msg > "/dev/stderr"
		bad = 1
		exit 1
	}
	# Every line of a section ends with a newline byte unless the marker
	# line follows it, so the newline is written only once the next line
	# (or the end of the section) shows whether it belongs.
	function end_section() {
		if (path == "")
			return
		if (lines > 0 && !nonl)
			printf "\n" > path
		close(path)
		path = ""
	}
	/^--- (command|stdout|stderr)( base64)?$/ {
		end_section()
		split($0, word, " ")
		if (word[2] in seen)
			fail("a second \"--- " word[2] "\" section")
		seen[word[2]] = 1
		started = 1
		path = dir "/" word[2] (word[3] == "base64" ? ".b64" : "")
		printf "" > path
		lines = 0
		nonl = 0
		next
	}
	!started && /^ExpectedExitCode:/ {
		value = $0
		sub(/^ExpectedExitCode:[ \t]*/, "", value)
		sub(/[ \t]+$/, "", value)
		if (value !~ /^[0-9]+$/ || value + 0 > 255)
			fail("ExpectedExitCode: expected a number from 0 to 255, found \"" value "\"")
		if (status != "")
			fail("a second ExpectedExitCode line")
		status = value + 0
		next
	}
	!started {
		if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) {
			print > (dir "/header")
			next
		}
		fail("expected \"ExpectedExitCode: N\", a # comment or a section line (--- command, --- stdout, --- stderr), found \"" $0 "\"")
	}
	$0 == "\\ No newline at end of section" {
		if (lines == 0 || nonl)
			fail("the no-newline marker must follow a line of a section")
		nonl = 1
		next
	}
	{
		if (nonl)
			fail("text after the no-newline marker")
		if (lines > 0)
			printf "\n" > path
		printf "%s", $0 > path
		lines++
	}
	END {
		if (bad)
			exit 1
		end_section()
		if (!("command" in seen)) {
			FNR = 0
			fail("no \"--- command\" section")
		}
		print (status == "" ? 0 : status) > (dir "/status")
	}' "$file" || return 1
	for section in command stdout stderr; do
		if [ -s "$dir/$section.b64" ]; then
			base64 -d <"$dir/$section.b64" >"$dir/$section" ||
				{ echo "$file: --- $section base64: not valid base64" >&2; return 1; }
		fi
	done
}

# case_verbatim FILE — can FILE be written into a section as it is?  Not if
# it holds control characters other than tab and newline (NUL, CR and
# escapes would not survive an editor or awk), is not UTF-8, or has a line
# that reads as a section line or the no-newline marker.
case_verbatim() {
	[ "$(LC_ALL=C tr -d '\t\n\040-\176\200-\377' <"$1" | wc -c)" -eq 0 ] &&
	iconv -f UTF-8 -t UTF-8 <"$1" >/dev/null 2>&1 &&
	! LC_ALL=C grep -Eqx -e '--- (command|stdout|stderr)( base64)?' \
		-e '\\ No newline at end of section' "$1"
}

# case_section NAME FILE — print FILE as section NAME: verbatim when it can
# be, marked when its last line has no newline, else base64.  An empty
# stdout or stderr is left out (empty is the default).
case_section() {
	local name=$1 file=$2
	[ -s "$file" ] || [ "$name" = command ] || return 0
	if case_verbatim "$file"; then
		echo "--- $name"
		cat "$file"
		if [ -n "$(tail -c 1 "$file")" ]; then
			echo
			echo '\ No newline at end of section'
		fi
	else
		echo "--- $name base64"
		base64 -w 76 "$file"
	fi
}

# case_write CASE STATUS COMMAND STDOUT STDERR [HEADER] — write CASE (via a
# temporary file renamed into place) from the files given.
case_write() {
	local file=$1 status=$2 command=$3 out=$4 err=$5 header=${6:-}
	{
		[ -n "$header" ] && cat "$header"
		echo "ExpectedExitCode: $status"
		case_section command "$command"
		case_section stdout "$out"
		case_section stderr "$err"
	} >"$file.new" && mv "$file.new" "$file"
}
