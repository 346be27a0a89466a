#!/usr/bin/env bash
# headalloc.pc as a user sees it: install the build into a scratch
# DESTDIR, then check that `pkg-config --cflags --libs headalloc` is
# headalloc's own -I, -L and -l (no other library's -I, no absolute
# path), that --static adds only -l/-L/-pthread flags, and that a tiny
# program compiles and links against the installed library with it, its
# installed version macros naming the library it loads.
#   check_pkgconfig.sh BUILDDIR CC
set -euo pipefail
build=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name headalloc.pc)
[ -n "$pc" ] || { echo "FAIL no headalloc.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/root
flags=$(pkg-config --cflags --libs headalloc)
echo "pkg-config --cflags --libs headalloc: $flags"
for f in $flags; do
	case $f in
	-I"$tmp/root"*/include | -L"$tmp/root"*/lib* | -lheadalloc) ;;
	*) echo "FAIL '$f' is not headalloc's own flag"; exit 1 ;;
	esac
done
static=$(pkg-config --static --libs headalloc)
echo "pkg-config --static --libs headalloc: $static"
for f in $static; do
	case $f in
	-l* | -L* | -pthread) ;;
	*) echo "FAIL '$f' in the static flags is not -l, -L or -pthread"; exit 1 ;;
	esac
done
cat >"$tmp/tiny.c" <<'C'
#include <headalloc/headalloc.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	char headers[64];
	snprintf(headers, sizeof headers, "%d.%d.%d", HA_VERSION_MAJOR,
	         HA_VERSION_MINOR, HA_VERSION_PATCH);
	if (strcmp(headers, ha_version()) != 0 ||
	    strcmp(HA_VERSION_STRING, ha_version()) != 0) {
		printf("headers %s, library %s\n", headers, ha_version());
		return 1;
	}
	printf("%s: %s\n", ha_version(), ha_status_str(HA_EFORMAT));
	return 0;
}
C
# A library built with -Db_sanitize=address,undefined needs its program
# built so too (ASan's runtime must come first in the process).
lib=$(find "$tmp/root" -name 'libheadalloc.so' | head -1)
sanitize=
if readelf -d "$lib" | grep -q 'libasan'; then
	sanitize='-fsanitize=address,undefined'
fi
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Werror $sanitize -o "$tmp/tiny" "$tmp/tiny.c" $flags
LD_LIBRARY_PATH=$(dirname "$lib") "$tmp/tiny" >"$tmp/out" ||
	{ echo "FAIL the tiny program: $(cat "$tmp/out")"; exit 1; }
[ -s "$tmp/out" ] || { echo "FAIL the tiny program printed nothing"; exit 1; }
echo "ok: a program compiles and runs with those flags ($(cat "$tmp/out"))"
