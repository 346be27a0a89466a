"$HEADALLOC" hdi model.safetensors --heads 12 --layout columns
