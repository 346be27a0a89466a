"$HEADALLOC" --budget '' --samples 1e8
