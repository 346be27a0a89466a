printf "budgets: [512]\nsamples: 1e8\nconstraints: {min_heads: 1000}\n" > s.yaml
"$HEADALLOC" --config s.yaml --max-head-dim 4
