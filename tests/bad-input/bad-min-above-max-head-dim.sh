"$HEADALLOC" --budget 512 --samples 1e8 --min-head-dim 64 --max-head-dim 8
