printf 'covariance: &a [[1]]\n' > cov.yaml
"$HEADALLOC" weights cov.yaml
