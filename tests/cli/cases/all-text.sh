"$HEADALLOC" --budget 4544 --samples 1.5e12 --all
