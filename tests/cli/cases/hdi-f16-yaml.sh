set -o pipefail
D=$(dirname "$0")/../../data
cp "$D/heads12-f16.safetensors" . && "$HEADALLOC" hdi heads12-f16.safetensors --heads 12 --format yaml | awk -f "$(dirname "$0")/../round-floats.awk"
