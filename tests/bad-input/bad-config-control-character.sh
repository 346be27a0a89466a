printf 'budgets: 512\nsamples: 1e8 \001\n' > s.yaml
"$HEADALLOC" --config s.yaml
