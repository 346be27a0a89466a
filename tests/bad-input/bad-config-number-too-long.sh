printf 'budgets: 512\nsamples: 1%064d\n' 0 > s.yaml
"$HEADALLOC" --config s.yaml
