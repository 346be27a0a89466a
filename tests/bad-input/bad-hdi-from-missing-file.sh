"$HEADALLOC" --budget 24 --samples 1e8 --hdi-from missing.safetensors --hdi-heads 12
