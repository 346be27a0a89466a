"$HEADALLOC" hdi model.safetensors --heads 0
