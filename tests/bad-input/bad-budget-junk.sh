"$HEADALLOC" --budget abc --samples 1e8
