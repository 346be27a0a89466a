"$HEADALLOC" --budget 0512 --samples 1e8
