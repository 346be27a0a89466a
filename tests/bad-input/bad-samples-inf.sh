"$HEADALLOC" --budget 512 --samples inf
