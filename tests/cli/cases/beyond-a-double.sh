"$HEADALLOC" --budget 1024 --samples 1e8 --min-head-dim 512 --format yaml
