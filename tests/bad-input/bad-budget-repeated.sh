"$HEADALLOC" --budget 512,1024,512 --samples 1e8
