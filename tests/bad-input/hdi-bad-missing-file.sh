"$HEADALLOC" hdi missing.safetensors --heads 12
