"$HEADALLOC" --budget 4096 --samples 2e12 --head-dim-multiple 64 --max-head-dim 256 --min-heads 8
