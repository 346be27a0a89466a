"$HEADALLOC" --budget 512 --samples 1e8 --min-head-dim 3 --max-head-dim 7
