D=$(dirname "$0")/../data
# Without --tensor every tensor is read, and model.norm.weight is 1-D.
cp "$D/two-layers.safetensors" . && "$HEADALLOC" hdi two-layers.safetensors --heads 12
