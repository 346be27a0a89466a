D=$(dirname "$0")/../data
cp "$D/heads12-f32.npy" w.safetensors && "$HEADALLOC" hdi w.safetensors --heads 12
