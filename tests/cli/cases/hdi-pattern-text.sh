D=$(dirname "$0")/../../data
# Both key projections, not q_proj nor the 1-D norm; with the matrices.
cp "$D/two-layers.safetensors" . &&
"$HEADALLOC" hdi two-layers.safetensors --tensor 'model.layers.*.k_proj.weight' --heads 12 --overlap
