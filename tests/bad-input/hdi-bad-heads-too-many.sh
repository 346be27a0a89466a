D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" . && "$HEADALLOC" hdi heads12-f32.safetensors --heads 12000
