D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" w.safetensors && "$HEADALLOC" hdi w.safetensors --heads 12 --output w.safetensors
