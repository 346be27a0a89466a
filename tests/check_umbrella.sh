#!/bin/sh
# check_umbrella.sh INCLUDEDIR BUILD_INCLUDEDIR: headalloc.h includes every
# public header of INCLUDEDIR/headalloc (each by its own #include line)
# and the generated <headalloc/version.h> of BUILD_INCLUDEDIR, and
# compiles alone.  Prints the headers it leaves out and "1 passed, 0
# failed" or "0 passed, 1 failed".
set -u
dir=$1/headalloc
built=$2
status=0
for h in "$dir"/*.h; do
	name=${h##*/}
	[ "$name" = headalloc.h ] && continue
	if ! grep -q "^#include \"$name\"" "$dir/headalloc.h"; then
		echo "headalloc.h does not include $name"
		status=1
	fi
done
if [ ! -f "$built/headalloc/version.h" ] ||
	! grep -q '^#include <headalloc/version.h>' "$dir/headalloc.h"; then
	echo "headalloc.h does not include the generated <headalloc/version.h>"
	status=1
fi
printf '#include <headalloc/headalloc.h>\nint main(void) { return HA_VERSION_MAJOR * 0; }\n' |
	${CC:-cc} -std=c11 -fsyntax-only -I"$1" -I"$built" -x c - || status=1
[ "$status" -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit "$status"
