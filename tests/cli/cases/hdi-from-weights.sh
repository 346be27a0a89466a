cp "$(dirname "$0")/../../data/heads12-f32.safetensors" .
"$HEADALLOC" --budget 24 --samples 1e8 --hdi-from heads12-f32.safetensors --hdi-heads 12 --format yaml
