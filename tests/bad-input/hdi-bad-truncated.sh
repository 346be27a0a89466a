D=$(dirname "$0")/../data
cp "$D/bad-truncated.safetensors" . && "$HEADALLOC" hdi bad-truncated.safetensors --heads 2
