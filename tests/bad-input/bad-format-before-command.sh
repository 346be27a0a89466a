D=$(dirname "$0")/../data
cp "$D/cov3.yaml" . && "$HEADALLOC" --format yaml weights cov3.yaml
