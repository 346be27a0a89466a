printf 'budgets: 512\n"samples\\0x": 1e8\n' > s.yaml
"$HEADALLOC" --config s.yaml
