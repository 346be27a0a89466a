D=$(dirname "$0")/../data
cp "$D/cov-bad-value.yaml" . && "$HEADALLOC" weights cov-bad-value.yaml
