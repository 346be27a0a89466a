printf "budgets: [0512]\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml
