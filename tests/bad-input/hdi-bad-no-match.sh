D=$(dirname "$0")/../data
cp "$D/two-layers.safetensors" . && "$HEADALLOC" hdi two-layers.safetensors --heads 12 --tensor '*v_proj*'
