printf "covariance:\n  - [1, 0]\n  - [0, -1e-12]\n" > c.yaml
"$HEADALLOC" weights c.yaml
