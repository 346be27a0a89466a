D=$(dirname "$0")/../../data
cp "$D/cov-singular.yaml" . && "$HEADALLOC" weights cov-singular.yaml
