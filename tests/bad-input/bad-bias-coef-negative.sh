"$HEADALLOC" --budget 512 --samples 1e8 --bias-coef -1
