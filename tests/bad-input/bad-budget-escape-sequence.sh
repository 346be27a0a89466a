"$HEADALLOC" --budget "$(printf '\033[31m512')" --samples 1e8
