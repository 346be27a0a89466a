set -o pipefail
D=$(dirname "$0")/../../data
# One head: no pairs, HDI 1.
cp "$D/heads12-f32.safetensors" . && "$HEADALLOC" hdi heads12-f32.safetensors --heads 1 &&
"$HEADALLOC" hdi heads12-f32.safetensors --heads 1 -f yaml | awk -f "$(dirname "$0")/../round-floats.awk"
