D=$(dirname "$0")/../../data
cp "$D/cov3.yaml" . && "$HEADALLOC" weights cov3.yaml --output out.txt && cat out.txt
