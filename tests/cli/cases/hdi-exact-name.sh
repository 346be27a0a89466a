D=$(dirname "$0")/../../data
cp "$D/two-layers.safetensors" . &&
"$HEADALLOC" hdi --heads 12 --tensor model.layers.1.self_attn.k_proj.weight two-layers.safetensors
