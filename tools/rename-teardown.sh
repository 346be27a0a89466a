#!/bin/sh
# rename-teardown.sh [ROOT]: one teardown verb per kind (issue 16, item 6).
#   _new / _free     what the library allocates   (ha_report_new, ha_report_free)
#   _init / _finish  what the caller's storage holds (ha_error_init,
#                    ha_hdi_tensor_finish)
# and the verb that writes a document's end is _end, so that _finish
# means only the teardown of caller storage.  Renames every public
# function that used another verb, in src/ include/ tests/ bench/ man/
# python/ README.md of ROOT (default: the repository this script is in).
# Idempotent: run it again after merging branches that still use the old
# names; afterwards `git grep -E 'OLD'` finds none of them.
set -eu
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
renames='
ha_error_clear ha_error_init
ha_hdi_tensor_clear ha_hdi_tensor_finish
ha_head_weights_clear ha_head_weights_finish
ha_cal_fit_release ha_cal_fit_finish
ha_report_finish ha_report_end
ha_yaml_writer_finish ha_yaml_writer_end
'
script=$(echo "$renames" | awk 'NF == 2 { printf "s/\\<%s\\>/%s/g;", $1, $2 }')
pattern=$(echo "$renames" | awk 'NF == 2 { printf "%s%s", sep, $1; sep = "|" }')
paths=
for p in src include tests bench man python README.md; do
	[ -e "$p" ] && paths="$paths $p"
done
# text files naming an old name (grep -I skips binary files)
grep -rlIE "\\<($pattern)\\>" $paths 2>/dev/null | while IFS= read -r f; do
	sed -i "$script" "$f"
done
if grep -rnIE "\\<($pattern)\\>" $paths; then
	echo "rename-teardown: old names remain (above)" >&2
	exit 1
fi
