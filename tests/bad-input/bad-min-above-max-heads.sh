"$HEADALLOC" --budget 512 --samples 1e8 --min-heads 9 --max-heads 3
