# --plot-each: one picture per tensor, numbered in the report's order.
D=$(dirname "$0")/../../data
cp "$D/two-layers.safetensors" . && "$HEADALLOC" hdi two-layers.safetensors --heads 12 --tensor 'model.layers.*.k_proj.weight' --plot-each --plot layer.png > /dev/null
echo "status $?"
ls
for f in layer-*.png; do od -An -c -N4 "$f"; done
