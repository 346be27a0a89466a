"$HEADALLOC" --budget 0 --samples 1e8
