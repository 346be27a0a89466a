"$HEADALLOC" --budget 512
