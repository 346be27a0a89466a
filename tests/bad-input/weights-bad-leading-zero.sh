printf 'covariance: [[010, 0], [0, 1]]\n' > cov.yaml
"$HEADALLOC" weights cov.yaml
