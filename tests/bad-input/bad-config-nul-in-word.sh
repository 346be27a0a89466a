printf 'budgets: 512\nsamples: 1e8\nreport: {format: "yaml\\0"}\n' > s.yaml
"$HEADALLOC" --config s.yaml
