D=$(dirname "$0")/../data
cp "$D/cov3.yaml" c.yaml && "$HEADALLOC" weights c.yaml -o c.yaml
