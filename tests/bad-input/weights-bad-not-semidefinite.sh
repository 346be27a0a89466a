printf 'covariance: [[1, 2], [2, 1]]\n' > cov.yaml
"$HEADALLOC" weights cov.yaml
