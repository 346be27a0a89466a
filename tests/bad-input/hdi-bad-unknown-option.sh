"$HEADALLOC" hdi model.safetensors --heads 12 --budget 512
