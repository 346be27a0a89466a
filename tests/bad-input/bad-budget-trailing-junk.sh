"$HEADALLOC" --budget 512k --samples 1e8
