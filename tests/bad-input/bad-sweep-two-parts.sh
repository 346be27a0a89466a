"$HEADALLOC" --budget 512 --samples 1e4:1e12
