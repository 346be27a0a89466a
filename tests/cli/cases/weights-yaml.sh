set -o pipefail
D=$(dirname "$0")/../../data
cp "$D/cov3.yaml" . && "$HEADALLOC" weights cov3.yaml --format yaml | awk -f "$(dirname "$0")/../round-floats.awk"
