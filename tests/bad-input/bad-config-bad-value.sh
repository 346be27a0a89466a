printf "budgets: [512]\nsamples: {from: 1e4, to: 1e12, points: 9}\nmodel:\n  hdi: 1.5\n" > s.yaml
"$HEADALLOC" --config s.yaml
