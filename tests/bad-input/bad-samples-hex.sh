"$HEADALLOC" --budget 512 --samples 0x10
