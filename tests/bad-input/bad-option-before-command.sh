D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" . && "$HEADALLOC" --heads 12 hdi heads12-f32.safetensors
