"$HEADALLOC" weights cov.yaml --format json
