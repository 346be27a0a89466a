printf "budgets: [512]\n" > s.yaml
"$HEADALLOC" --config s.yaml
