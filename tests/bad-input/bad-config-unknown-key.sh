printf "budgets: [512]\nsamples: 1e8\nmodle:\n  smoothness: 2\n" > s.yaml
"$HEADALLOC" --config s.yaml
