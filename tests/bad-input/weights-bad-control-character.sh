printf 'covariance: [[1]]\n\001\n' > cov.yaml
"$HEADALLOC" weights cov.yaml
