"$HEADALLOC" --budget 512 --samples 1e12:1e4:9
