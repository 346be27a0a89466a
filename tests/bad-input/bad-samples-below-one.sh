"$HEADALLOC" --budget 512 --samples 0.5
