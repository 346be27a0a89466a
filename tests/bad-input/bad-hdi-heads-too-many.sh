D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" . && "$HEADALLOC" --budget 512 --samples 1e8 --hdi-from heads12-f32.safetensors --hdi-heads 2000
