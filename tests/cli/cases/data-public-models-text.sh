D=$(dirname "$0")/../../../data
"$HEADALLOC" --config "$D/public-models.yaml"
