"$HEADALLOC" hdi x.safetensors --heads 12 --plot-each
