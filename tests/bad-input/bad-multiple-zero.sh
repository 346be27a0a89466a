"$HEADALLOC" --budget 512 --samples 1e8 --head-dim-multiple 0
