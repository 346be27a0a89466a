D=$(dirname "$0")/../data
cp "$D/bad-nonfinite.safetensors" . && "$HEADALLOC" hdi bad-nonfinite.safetensors --heads 2
