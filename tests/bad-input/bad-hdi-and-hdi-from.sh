"$HEADALLOC" --budget 24 --samples 1e8 --hdi 0.5 --hdi-from x.safetensors --hdi-heads 12
