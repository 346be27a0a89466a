D=$(dirname "$0")/../data
cp "$D/cov-nonsymmetric.yaml" . && "$HEADALLOC" weights cov-nonsymmetric.yaml
