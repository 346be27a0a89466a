printf 'covariance: [[1, 0], [0, 0]]\n' > cov.yaml
"$HEADALLOC" weights cov.yaml --format yaml
