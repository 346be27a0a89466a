printf "samples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml
