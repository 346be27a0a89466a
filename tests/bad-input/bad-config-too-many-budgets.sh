{ printf "budgets: ["; seq -s, 1 100001 | tr -d '\n'; printf "]\nsamples: 1e8\n"; } > s.yaml
"$HEADALLOC" --config s.yaml
