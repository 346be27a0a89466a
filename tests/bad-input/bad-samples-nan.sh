"$HEADALLOC" --budget 512 --samples nan
