D=$(dirname "$0")/../../data
cp "$D/heads12-bf16.safetensors" . && "$HEADALLOC" hdi heads12-bf16.safetensors --heads 12
