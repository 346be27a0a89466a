"$HEADALLOC" --budget 256,512,1024 --samples 1e8 --format yaml
