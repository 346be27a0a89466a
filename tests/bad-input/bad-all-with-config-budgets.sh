printf "budgets: [512, 1024]\nsamples: 1e8\n" > s.yaml
"$HEADALLOC" --config s.yaml --all
