D=$(dirname "$0")/../data
cp "$D/cov-bad-syntax.yaml" . && "$HEADALLOC" weights cov-bad-syntax.yaml
