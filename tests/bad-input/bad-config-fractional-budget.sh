printf "budgets: [512, 64.5]\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml
