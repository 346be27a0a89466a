set -o pipefail
D=$(dirname "$0")/../../data
cp "$D/cov-singular.yaml" . && "$HEADALLOC" weights cov-singular.yaml -f yaml | awk -f "$(dirname "$0")/../round-floats.awk"
