printf 'covariance: [[!!float 1]]\n' > cov.yaml
"$HEADALLOC" weights cov.yaml
