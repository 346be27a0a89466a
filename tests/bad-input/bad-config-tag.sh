printf "budgets: !!str 512\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml
