mkfifo w.safetensors && "$HEADALLOC" hdi w.safetensors --heads 2
