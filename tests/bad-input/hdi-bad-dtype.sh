D=$(dirname "$0")/../data
cp "$D/bad-dtype.safetensors" . && "$HEADALLOC" hdi bad-dtype.safetensors --heads 2
