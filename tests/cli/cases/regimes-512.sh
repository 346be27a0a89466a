"$HEADALLOC" --budget 512 --regimes
