"$HEADALLOC" --budget 512,7 --samples 1e8,1e9 --head-dim-multiple 8
