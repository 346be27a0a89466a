D=$(dirname "$0")/../data
cp "$D/bad-offsets-overlap.safetensors" . && "$HEADALLOC" hdi bad-offsets-overlap.safetensors --heads 2
