"$HEADALLOC" --samples 1e8
