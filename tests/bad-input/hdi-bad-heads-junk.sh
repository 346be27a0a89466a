"$HEADALLOC" hdi model.safetensors --heads 12x
