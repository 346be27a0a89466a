D=$(dirname "$0")/../data
cp "$D/bad-header-length.safetensors" . && "$HEADALLOC" hdi bad-header-length.safetensors --heads 2
