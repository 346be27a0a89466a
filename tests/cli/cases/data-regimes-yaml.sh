D=$(dirname "$0")/../../../data
"$HEADALLOC" --config "$D/regimes.yaml" --format yaml
