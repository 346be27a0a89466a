"$HEADALLOC" --budget 24 --samples 1e8 --hdi-from x.safetensors
