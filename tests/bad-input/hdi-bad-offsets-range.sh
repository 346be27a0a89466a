D=$(dirname "$0")/../data
cp "$D/bad-offsets-range.safetensors" . && "$HEADALLOC" hdi bad-offsets-range.safetensors --heads 2
