"$HEADALLOC" --budget 512,,1024 --samples 1e8
