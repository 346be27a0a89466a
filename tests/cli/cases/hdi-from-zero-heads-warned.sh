D=$(dirname "$0")/../../data
# --hdi-from warns, as hdi does, about heads without weights and heads of
# lower rank, and says what was done with them.
cp "$D/two-layers.safetensors" . &&
"$HEADALLOC" --budget 512 --samples 1e8 --hdi-from two-layers.safetensors --hdi-tensor 'model.layers.1.*k_proj*' --hdi-heads 12 --format yaml | grep hdi
