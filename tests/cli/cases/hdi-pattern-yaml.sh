set -o pipefail
D=$(dirname "$0")/../../data
cp "$D/two-layers.safetensors" . &&
"$HEADALLOC" hdi two-layers.safetensors --tensor '*_proj.weight' --heads 12 --format yaml | awk -f "$(dirname "$0")/../round-floats.awk"
