"$HEADALLOC" --budget 512.5 --samples 1e8
