printf "budgets: [512, 1024]\nsamples: {from: 2, to: 1e8, points: 600000}\n" > s.yaml
"$HEADALLOC" --config s.yaml
