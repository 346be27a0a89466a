"$HEADALLOC" --budget 1 --samples 2 --format yaml
