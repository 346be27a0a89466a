printf "budgets: [512]\nsamples: 1e8\nconstraints: {min_heads: 8}\n" > s.yaml
"$HEADALLOC" --config s.yaml --max-heads 4
