D=$(dirname "$0")/../data
cp "$D/heads12-f32.safetensors" w.safetensors && "$HEADALLOC" --budget 512 --samples 1e8 --hdi-from w.safetensors --hdi-heads 12 --output ./w.safetensors
