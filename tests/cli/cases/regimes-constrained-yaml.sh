"$HEADALLOC" --budget 4096 --regimes --head-dim-multiple 8 --max-head-dim 256 --format yaml
