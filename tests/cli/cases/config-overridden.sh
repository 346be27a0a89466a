D=$(dirname "$0")/../../../data
"$HEADALLOC" --config "$D/scaling.yaml" --budget 512 --samples 1e8 --hdi 0.5 --format yaml
