printf "budgets: [512, 1024]\nsamples: 1e8\nreport: {all: true}\n" > s.yaml
"$HEADALLOC" --config s.yaml
