"$HEADALLOC" hdi model.safetensors
