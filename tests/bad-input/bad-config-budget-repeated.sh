printf "budgets: [512, 1024, 512]\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml
