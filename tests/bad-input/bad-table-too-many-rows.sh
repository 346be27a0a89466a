"$HEADALLOC" --budget 512,1024 --samples 2:1e8:600000
