D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" w.npy && "$HEADALLOC" hdi w.npy --heads 12
