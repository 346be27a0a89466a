{ echo "covariance:"; printf "  - [%s0]\n" "$(printf '0,%.0s' $(seq 1024))"; } > c.yaml
"$HEADALLOC" weights c.yaml
